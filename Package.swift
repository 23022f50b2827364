// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "KeyboardAdapter",
    products: [
        .library(name: "KeyboardAdapterCore", targets: ["KeyboardAdapterCore"]),
        // The values both sides speak (geometry, identities, observations, errors); the core and the
        // backends' interface export it.
        .library(name: "KeyboardValues", targets: ["KeyboardValues"]),
        // What a backend is built on: the run loop, the backend and service protocols, the
        // registry. An app does not see it: a backend (in this package or outside it) imports it.
        .library(name: "KeyboardBackendInterface", targets: ["KeyboardBackendInterface"]),
        // Doubles for an app's own tests (an in-memory backend), kept out of the production core.
        .library(name: "KeyboardAdapterTesting", targets: ["KeyboardAdapterTesting"]),
        // Drag-to-dismiss and tap-to-dismiss, built on the core alone (the umbrella exports it).
        .library(name: "KeyboardDismissal", targets: ["KeyboardDismissal"]),
        // Recording and replay (`kbwatch --record`, `--replay`), exported by the umbrella.
        .library(name: "KeyboardReplay", targets: ["KeyboardReplay"]),
        .library(name: "X11Adapter", targets: ["X11Adapter"]),
        .library(name: "WaylandAdapter", targets: ["WaylandAdapter"]),
        .library(name: "KWinAdapter", targets: ["KWinAdapter"]),
        .library(name: "GnomeAdapter", targets: ["GnomeAdapter"]),
        .library(name: "KeyboardServices", targets: ["KeyboardServices"]),
        .library(name: "KeyboardAdapter", targets: ["KeyboardAdapter"]),
        .executable(name: "kbwatch", targets: ["kbwatch"]),
        .executable(name: "kbdemo", targets: ["kbdemo"]),
        .executable(name: "kbshot", targets: ["kbshot"]),
        .executable(name: "kbglib", targets: ["kbglib"]),
    ],
    targets: [
        // Pure Swift, the values both sides speak: geometry, identities, observations, errors
        // (the core and the backends' interface export it).
        .target(name: "KeyboardValues"),
        // Pure Swift, what a backend is built on: the run loop and its sources, the backend and
        // service protocols, the registry.
        .target(name: "KeyboardBackendInterface", dependencies: ["KeyboardValues"]),
        // Pure Swift, what an app uses: the updates and events, the tracker, the manager and its
        // deliveries.
        .target(name: "KeyboardAdapterCore", dependencies: ["KeyboardValues", "KeyboardBackendInterface"]),
        // Test doubles for apps: the in-memory backend (like swift-log's in-memory handler).
        .target(name: "KeyboardAdapterTesting", dependencies: ["KeyboardAdapterCore", "KeyboardBackendInterface"]),
        // Drag-to-dismiss and tap-to-dismiss: what an app's own input does to the keyboard.
        .target(name: "KeyboardDismissal", dependencies: ["KeyboardAdapterCore"]),
        // JSON read with bounds and written without copies: recordings, rules files, sway's IPC,
        // the companions' messages, kbwatch's lines.
        .target(name: "KeyboardJSON", dependencies: ["KeyboardBackendInterface"]),
        // Recording what a backend sees, and playing it back as a backend.
        .target(
            name: "KeyboardReplay", dependencies: ["KeyboardAdapterCore", "KeyboardBackendInterface", "KeyboardJSON"]),

        // The run loop thread's request for a short time slice (libc's syscall() only).
        .systemLibrary(name: "CThreadSlice", path: "Sources/CThreadSlice"),
        // glibc's malloc tuning, for kbwatch's resident memory (malloc.h only).
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),

        // C libraries from Debian's -dev packages. The Xlib and RandR modules are headers only:
        // the X11 backend reaches the libraries through CX11Loader, which loads them when an X
        // display is first used and hands their functions over in a table under its own names (it
        // defines none of theirs; XKB layouts through libxkbcommon-x11 are read there too); a
        // program that calls Xlib itself links libX11 (TestSupport, the example app).
        .systemLibrary(name: "CX11", path: "Sources/CX11", providers: [.apt(["libx11-dev"])]),
        .systemLibrary(name: "CXrandr", path: "Sources/CXrandr", providers: [.apt(["libxrandr-dev"])]),
        .target(name: "CX11Loader", dependencies: ["CX11", "CXrandr", "CXkbCommon"]),
        .systemLibrary(
            name: "CWayland", path: "Sources/CWayland", pkgConfig: "wayland-client",
            providers: [.apt(["libwayland-dev"])]),
        .target(name: "CWaylandProtocols", dependencies: ["CWayland"]),
        .systemLibrary(
            name: "CXkbCommon", path: "Sources/CXkbCommon", pkgConfig: "xkbcommon",
            providers: [.apt(["libxkbcommon-dev"])]),

        // sd-bus (libsystemd) for the keyboards' own D-Bus services, with a small C shim for what
        // Swift cannot express (no-auto-start calls, error replies, SD_BUS_ERROR_NULL). Its headers
        // only: CSystemdBus loads the library when a session bus is first used, so nothing links it.
        .systemLibrary(name: "CSystemd", path: "Sources/CSystemd", providers: [.apt(["libsystemd-dev"])]),
        .target(name: "CSystemdBus", dependencies: ["CSystemd"]),
        // Keyboard services (onboard, squeekboard) on the session bus: plugins beside the backends.
        // The session bus through sd-bus, in one place: connections, messages, typed values, the
        // connection as a loop source, and who a signal must come from to be believed.
        .target(name: "SystemdBus", dependencies: ["KeyboardBackendInterface", "CSystemd", "CSystemdBus"]),
        // The loop thread's short time slice, asked for by every connection events come on.
        .target(name: "LoopThreadSlice", dependencies: ["KeyboardBackendInterface", "CThreadSlice"]),
        .target(
            name: "KeyboardServices",
            dependencies: ["KeyboardBackendInterface", "KeyboardJSON", "SystemdBus", "CSystemd", "LoopThreadSlice"],
            plugins: ["EmbeddedTexts"]),

        // Display-server backends, one plugin each.
        .target(
            name: "X11Adapter",
            dependencies: [
                "KeyboardBackendInterface", "KeyboardJSON", "CX11", "CXrandr", "CXkbCommon", "CX11Loader",
                "LoopThreadSlice",
            ]),
        // What the Wayland backends share: the connection as a loop source, the registry, outputs
        // with xdg-output, and the seat keyboard's layout.
        .target(
            name: "WaylandClient",
            dependencies: [
                "KeyboardBackendInterface", "CWayland", "CWaylandProtocols", "CXkbCommon", "LoopThreadSlice",
            ]),
        .target(
            name: "WaylandAdapter",
            dependencies: [
                "KeyboardBackendInterface", "KeyboardJSON", "WaylandClient", "CWayland", "CWaylandProtocols",
            ]),
        .target(name: "KWinAdapter", dependencies: ["KeyboardBackendInterface", "WaylandClient", "CWayland"]),
        // GNOME Shell's own keyboard, through the package's extension (Companions/gnome-shell).
        .target(name: "GnomeAdapter", dependencies: ["KeyboardBackendInterface"]),

        // Umbrella: the core plus every backend, registered.
        .target(
            name: "KeyboardAdapter",
            dependencies: [
                "KeyboardAdapterCore", "KeyboardBackendInterface", "KeyboardDismissal", "KeyboardReplay", "X11Adapter",
                "WaylandAdapter", "KWinAdapter", "GnomeAdapter", "KeyboardServices",
            ]),

        // kbwatch's output formats, shared with the fuzzing harness that checks them.
        .target(name: "KbwatchOutput", dependencies: ["KeyboardAdapterCore", "KeyboardJSON"]),
        // The session service (`kbwatch --serve`) and its client (`kbwatch --from-service`).
        .target(
            name: "KeyboardSessionService",
            dependencies: ["KeyboardAdapterCore", "KeyboardBackendInterface", "SystemdBus", "KbwatchOutput"],
            plugins: ["EmbeddedTexts"]),
        // Built for release with the Swift runtime and the C++ runtime linked statically (scripts/install;
        // see docs/kbwatch.md).
        .executableTarget(
            name: "kbwatch",
            dependencies: [
                "KeyboardAdapter", "KeyboardBackendInterface", "KbwatchOutput", "KeyboardSessionService", "CMalloc",
            ],
            plugins: ["EmbeddedTexts"]),

        // The companions (Companions/) and interfaces (Interfaces/) kbwatch carries, read from
        // those files at build time into string constants of the targets that use them.
        .plugin(name: "EmbeddedTexts", capability: .buildTool(), dependencies: ["embedtexts"]),
        .executableTarget(name: "embedtexts", path: "Plugins/embedtexts"),

        // Helpers for integration tests: child processes, deadlines, real servers.
        .target(
            name: "TestSupport", dependencies: ["CX11", "CThreadSlice", "KeyboardAdapterCore"],
            path: "Tests/TestSupport", linkerSettings: [.linkedLibrary("X11")]),

        .testTarget(
            name: "KeyboardAdapterCoreTests",
            dependencies: [
                "KeyboardAdapterCore", "KeyboardAdapterTesting", "KeyboardDismissal", "KeyboardReplay", "KeyboardJSON",
            ]),
        .testTarget(
            name: "KbwatchTests",
            dependencies: [
                "kbwatch", "kbraces", "toplevelflood", "KbwatchOutput", "KeyboardAdapterCore", "KeyboardReplay",
                "ScreenCapture", "TestSupport",
            ]),
        // The repository's own checks, and its packaging: scripts/install, scripts/build-deb and the
        // .deb installed on Debian 12 (the host) and in the Debian 13 userland.
        .testTarget(name: "RepositoryTests", dependencies: ["TestSupport", "KeyboardAdapter"]),
        // The Swift examples of the README and docs/, compiled in the surroundings a real app gives them.
        .testTarget(name: "ReadmeExampleTests", dependencies: ["KeyboardAdapter", "KeyboardAdapterTesting"]),
        // An app that declares its own Rect, Edge, EdgeInsets, ... beside `import KeyboardAdapter`.
        .testTarget(name: "NameCollisionTests", dependencies: ["KeyboardAdapter"]),
        // A hostile Wayland client for the tests: thousands of toplevels with long titles and app ids.
        // The manager's lifecycle races, run as a compositor session's user (KWin's, GNOME's).
        .executableTarget(
            name: "kbraces", dependencies: ["KeyboardAdapter", "TestSupport"], path: "Tests/LifecycleRaceRunner"),
        .executableTarget(
            name: "toplevelflood", dependencies: ["CWayland", "CWaylandProtocols"], path: "Tests/ToplevelFlood"),
        .testTarget(
            name: "WaylandAdapterTests",
            dependencies: [
                "WaylandAdapter", "KWinAdapter", "KeyboardServices", "CWayland", "CWaylandProtocols", "TestSupport",
            ]),

        // The example app: an input bar kept above the real on-screen keyboard, drawn with Xlib + Xft.
        .systemLibrary(
            name: "CXft", path: "Sources/CXft", pkgConfig: "xft",
            providers: [.apt(["libx11-dev", "libxft-dev"])]),
        .executableTarget(name: "kbdemo", dependencies: ["KeyboardAdapter", "CXft"], path: "Examples/kbdemo"),

        // Screen captures as PNG files (XGetImage + zlib), for the demo's screenshots and its pixel test.
        .systemLibrary(
            name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        .target(
            name: "ScreenCapture", dependencies: ["CX11", "CZlib"], path: "Examples/ScreenCapture",
            linkerSettings: [.linkedLibrary("X11")]),
        .executableTarget(name: "kbshot", dependencies: ["ScreenCapture"], path: "Examples/kbshot"),
        // An app that links libX11 and libsystemd itself beside the package and calls sd-bus first.
        .executableTarget(
            name: "kbforeign", dependencies: ["KeyboardAdapter", "CX11", "CSystemd"], path: "Tests/ForeignLibraryApp",
            linkerSettings: [.linkedLibrary("X11"), .linkedLibrary("systemd")]),
        .testTarget(name: "KbdemoTests", dependencies: ["kbdemo", "kbforeign", "ScreenCapture", "TestSupport"]),

        // The delivery modes in real processes: a poll() loop, dispatchMain(), and the mistake.
        .executableTarget(
            name: "kbdelivery", dependencies: ["KeyboardAdapterCore", "KeyboardAdapterTesting", "KeyboardReplay"],
            path: "Examples/kbdelivery"),
        // The descriptor in a GLib main loop, from inside a class that hands itself to a C callback.
        .systemLibrary(
            name: "CGLib", path: "Sources/CGLib", pkgConfig: "glib-2.0",
            providers: [.apt(["libglib2.0-dev"])]),
        .executableTarget(name: "kbglib", dependencies: ["KeyboardAdapter", "CGLib"], path: "Examples/glibbar"),
        .testTarget(name: "DeliveryTests", dependencies: ["kbdelivery", "kbglib", "TestSupport"]),
        .testTarget(
            name: "KeyboardServicesTests",
            dependencies: [
                "KeyboardServices", "KeyboardSessionService", "SystemdBus", "X11Adapter", "KeyboardAdapterCore",
                "KeyboardAdapterTesting", "TestSupport",
            ]),
        .testTarget(
            name: "X11AdapterTests", dependencies: ["X11Adapter", "KeyboardAdapterCore", "TestSupport", "CX11"]),
    ]
)
