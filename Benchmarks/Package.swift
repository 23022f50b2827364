// swift-tools-version:6.0
import Foundation
import PackageDescription

// The benchmarks, the fuzzer and their C floors, apart from what an app or a kbwatch user builds:
// `swift build --package-path Benchmarks -c release`, then `Benchmarks/.build/release/x11bench`
// (docs/performance.md). kbwatch is built beside them, from the package one folder up.

/// The package one folder up, under the identity SwiftPM gives a path dependency: its folder's name.
let root = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent

/// The benchmarks and the fuzzer drive kbwatch's own code, whose `package` declarations only
/// modules of the same Swift package see: they are compiled as modules of the root's package
/// (SwiftPM's name for it, the identity made a C identifier) instead of this one's.
let rootPackageName = String(
    root.lowercased().unicodeScalars.enumerated().map { index, scalar in
        let allowed = CharacterSet.alphanumerics.contains(scalar) && scalar.isASCII || scalar == "_"
        return allowed && !(index == 0 && CharacterSet.decimalDigits.contains(scalar)) ? Character(scalar) : "_"
    })

/// A Swift executable of this package inside the root's Swift package.
func swiftExecutable(_ name: String, _ dependencies: [Target.Dependency], path: String? = nil) -> Target {
    .executableTarget(
        name: name, dependencies: dependencies, path: path ?? name, packageAccess: false,
        swiftSettings: [.unsafeFlags(["-package-name", rootPackageName])])
}

/// A product of the root package.
func rootProduct(_ name: String) -> Target.Dependency { .product(name: name, package: root) }

let package = Package(
    name: "KeyboardAdapterBenchmarks",
    dependencies: [.package(path: "..")],
    targets: [
        // The root's test helpers (child processes, deadlines, real servers), the same files
        // (TestSupport links to Tests/TestSupport). The C modules they import come with the
        // X11 backend.
        .target(
            name: "TestSupport",
            dependencies: [
                rootProduct("KeyboardAdapterCore"), rootProduct("KeyboardBackendInterface"), rootProduct("X11Adapter"),
            ],
            path: "TestSupport", packageAccess: false,
            swiftSettings: [.unsafeFlags(["-package-name", rootPackageName])],
            linkerSettings: [.linkedLibrary("X11")]),

        // Show/hide latency and idle CPU of the Wayland backend against headless sway and wvkbd
        // (wlbare beside it: `swift build` builds both; a dependency on wlbare would bring its
        // protocols' module beside the root's into wlbench).
        swiftExecutable("wlbench", [rootProduct("WaylandAdapter"), rootProduct("kbwatch"), "TestSupport"]),
        // Its floor for a show: a bare libwayland client in C that makes the layer-shell probe and
        // the popup query that finds the keyboard's edge, one line per usable area. The protocols'
        // tables are the root's (Support/BareWaylandProtocols links to Sources/CWaylandProtocols),
        // compiled here so that the floor links no Swift.
        .target(name: "BareWaylandProtocols", path: "Support/BareWaylandProtocols"),
        .executableTarget(
            name: "wlbare", dependencies: ["BareWaylandProtocols"], path: "wlbare",
            linkerSettings: [.linkedLibrary("wayland-client")]),

        // Show/hide latency and idle CPU of kbwatch on headless KWin with maliit-keyboard.
        swiftExecutable(
            "kwinbench", [rootProduct("KeyboardAdapterCore"), rootProduct("kbwatch"), "TestSupport", "kwinbare"]),
        // Its floor: a bare sd-bus client in C that reads `visible` on each visibleChanged.
        .executableTarget(name: "kwinbare", path: "kwinbare", linkerSettings: [.linkedLibrary("systemd")]),
        // The keyboard's slide on headless GNOME Shell: each step to kbwatch's line, beside a bare client.
        swiftExecutable(
            "gnomebench", [rootProduct("KeyboardAdapterCore"), rootProduct("kbwatch"), "TestSupport", "gnomebare"]),
        .executableTarget(
            name: "gnomebare", path: "gnomebare", linkerSettings: [.linkedLibrary("systemd"), .linkedLibrary("m")]),
        // The session service's fan-out to 1, 10 and 100 subscribers, beside kbwatch's own line.
        swiftExecutable(
            "servicebench", [rootProduct("KeyboardAdapterCore"), rootProduct("kbwatch"), "TestSupport", "servicebare"]),
        .executableTarget(name: "servicebare", path: "servicebare", linkerSettings: [.linkedLibrary("systemd")]),

        // Fuzzing: mutated recordings and rules files through kbwatch's own code, in process. Its
        // output formats are kbwatch's KbwatchOutput, which no product of the root holds, compiled
        // here under a name of its own (Support/KbwatchOutput links to Sources/KbwatchOutput).
        .target(
            name: "FuzzedKbwatchOutput",
            dependencies: [rootProduct("KeyboardAdapterCore"), rootProduct("KeyboardReplay")],
            path: "Support/KbwatchOutput", packageAccess: false,
            swiftSettings: [.unsafeFlags(["-package-name", rootPackageName])]),
        swiftExecutable(
            "kbfuzz",
            [
                rootProduct("KeyboardAdapterCore"), rootProduct("KeyboardReplay"), rootProduct("X11Adapter"),
                "FuzzedKbwatchOutput",
            ]),

        // Idle CPU, memory and event latency of the kbwatch process on a private Xvfb.
        // Its floor for CPU per event: a bare Xlib client in C that reads the same events and
        // writes a JSON line of the same size per event.
        .executableTarget(name: "x11bare", path: "x11bare", linkerSettings: [.linkedLibrary("X11")]),
        swiftExecutable(
            "kbwatchbench", [rootProduct("KeyboardAdapterCore"), rootProduct("kbwatch"), "TestSupport", "x11bare"]),

        // Replay time against the number of keyboards visible at once (linear, not quadratic).
        swiftExecutable(
            "replaybench", [rootProduct("KeyboardAdapterCore"), rootProduct("KeyboardReplay"), "TestSupport"]),

        // Latency, idle CPU and event-storm figures of the X11 backend against real keyboards.
        swiftExecutable(
            "x11bench",
            [
                rootProduct("X11Adapter"), rootProduct("KeyboardAdapterCore"), rootProduct("kbwatch"), "TestSupport",
                "x11bare",
            ]),
    ]
)
