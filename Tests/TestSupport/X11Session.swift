import Foundation

/// A private X server (Xvfb, or Xorg with the dummy driver) for one test, with its own scratch directory, an optional window
/// manager (openbox) and the programs the test starts on it. Xvfb picks a free display itself
/// (`-displayfd`), so tests that run side by side never collide. Everything started here is ended
/// by its pid in `stop()`, which `deinit` also calls.
public final class X11Session: @unchecked Sendable {
    /// The display name, such as `:42`.
    public let display: String
    /// The scratch directory: logs, and HOME / XDG directories of the programs started here.
    public let directory: String
    /// The X server.
    public let server: ChildProcess
    /// The window manager, once started.
    public private(set) var windowManager: ChildProcess?
    /// The screen size.
    public let width: Int, height: Int
    private var children: [ChildProcess] = []
    private let lock = NSLock()

    /// Which X server to run.
    public enum Server: Sendable {
        /// Xvfb: one screen, one RandR monitor (`screen`) that cannot be split.
        case xvfb
        /// Xorg with the dummy video driver (root only): a virtual screen of the given size whose
        /// RandR monitors can be set with `xrandr`, so that a test can have several monitors.
        case xorgDummy
    }

    /// Starts an X server with a `width`×`height` screen (Xvfb) or a virtual screen that large
    /// (Xorg dummy) and waits until it takes connections. With `fresh`, the server is left as a
    /// freshly started one is: it resets whenever its last client disconnects, and no client has
    /// connected yet (readiness is the display number it prints, not a test connection).
    public init(width: Int = 1280, height: Int = 800, server kind: Server = .xvfb, fresh: Bool = false) throws {
        self.width = width
        self.height = height
        directory = NSTemporaryDirectory() + "x11-test-" + UUID().uuidString.prefix(8)
        for sub in ["", "/home", "/config", "/cache", "/data", "/runtime"] {
            try FileManager.default.createDirectory(
                atPath: directory + sub, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        // The server writes the display number it took to fd 1, which ChildProcess sends to the log.
        let server: ChildProcess
        switch kind {
        case .xvfb:
            server = try ChildProcess(
                "Xvfb",
                [
                    "-displayfd", "1", "-screen", "0", "\(width)x\(height)x24", "-nolisten",
                    "tcp",
                ] + (fresh ? [] : ["-noreset"]), directory: directory)
        case .xorgDummy:
            // Xorg opens the console and its log as root; an ordinary user skips these tests.
            if !Programs.isRoot { try Programs.skip("Xorg with the dummy driver needs root") }
            let config = """
                Section "Device"
                  Identifier "dummy"
                  Driver "dummy"
                  VideoRam 256000
                EndSection
                Section "Monitor"
                  Identifier "monitor"
                  HorizSync 5.0-1000.0
                  VertRefresh 5.0-200.0
                EndSection
                Section "Screen"
                  Identifier "screen"
                  Device "dummy"
                  Monitor "monitor"
                  DefaultDepth 24
                  SubSection "Display"
                    Depth 24
                    Virtual \(width) \(height)
                  EndSubSection
                EndSection

                """
            try config.write(toFile: directory + "/xorg.conf", atomically: true, encoding: .utf8)
            server = try ChildProcess(
                "Xorg",
                [
                    "-displayfd", "1", "-config", directory + "/xorg.conf", "-noreset",
                    "-nolisten", "tcp", "-logfile", directory + "/xorg.log",
                ],
                directory: directory)
        }
        self.server = server
        var number: String?
        try Wait.require("the X server to print its display number", timeout: 20) {
            number = server.log.split(separator: "\n").first { !$0.isEmpty && $0.allSatisfy(\.isNumber) }.map(
                String.init)
            return number != nil || !server.isRunning
        }
        guard let number, server.isRunning else {
            throw TestFailure("the X server did not start: \(server.log)")
        }
        let display = ":" + number
        self.display = display
        // Xvfb prints its number once it listens, so a fresh server is ready here.
        if fresh { return }
        try Wait.require("X server \(display) to accept connections", timeout: 10) {
            XTestClient(display: display) != nil
        }
    }

    deinit { stop() }

    /// The environment for programs on this server: DISPLAY, a private HOME and XDG directories,
    /// no session bus of the test process (programs that need one get their own).
    public var environment: [String: String?] {
        [
            "DISPLAY": display, "HOME": directory + "/home", "XDG_CONFIG_HOME": directory + "/config",
            "XDG_CACHE_HOME": directory + "/cache", "XDG_DATA_HOME": directory + "/data",
            "XDG_RUNTIME_DIR": directory + "/runtime", "DBUS_SESSION_BUS_ADDRESS": nil, "WAYLAND_DISPLAY": nil,
            "XDG_SESSION_TYPE": "x11", "NO_AT_BRIDGE": "1",
        ]
    }

    /// Starts a program on this server; it is ended when the session stops.
    @discardableResult
    public func start(_ program: String, _ arguments: [String] = [], environment extra: [String: String?] = [:]) throws
        -> ChildProcess
    {
        let child = try ChildProcess(
            program, arguments, environment: environment.merging(extra) { $1 },
            directory: directory)
        lock.withLock { children.append(child) }
        return child
    }

    /// An openbox configuration that keeps the keyboards as they are on a touch screen:
    /// undecorated, above other windows, never taking the focus (xvkbd by its class,
    /// matchbox-keyboard by its title).
    public static let keyboardsAboveConfig = """
        <?xml version="1.0" encoding="UTF-8"?>
        <openbox_config xmlns="http://openbox.org/3.4/rc">
          <theme><keepBorder>no</keepBorder></theme>
          <applications>
            <application class="XVkbd"><decor>no</decor><layer>above</layer><focus>no</focus></application>
            <application title="Keyboard"><decor>no</decor><layer>above</layer><focus>no</focus></application>
          </applications>
        </openbox_config>
        """

    /// `keyboardsAboveConfig` with openbox's own decorations left on the keyboards, as a desktop
    /// decorates every window: a title bar above, a handle below, borders at the sides.
    public static let keyboardsAboveDecoratedConfig = """
        <?xml version="1.0" encoding="UTF-8"?>
        <openbox_config xmlns="http://openbox.org/3.4/rc">
          <applications>
            <application class="XVkbd"><layer>above</layer><focus>no</focus></application>
            <application title="Keyboard"><layer>above</layer><focus>no</focus></application>
          </applications>
        </openbox_config>
        """

    /// Starts openbox (with `config` as its rc.xml, when given) and waits until it manages the
    /// screen (`_NET_SUPPORTING_WM_CHECK` is set).
    public func startWindowManager(config: String? = nil) throws {
        if let config {
            let configDirectory = directory + "/config/openbox"
            try FileManager.default.createDirectory(atPath: configDirectory, withIntermediateDirectories: true)
            try config.write(toFile: configDirectory + "/rc.xml", atomically: true, encoding: .utf8)
        }
        let openbox = try start("openbox", ["--sm-disable"])
        windowManager = openbox
        let client = try XTestClient.connect(display)
        try Wait.require("openbox to manage \(display)", timeout: 15) {
            client.rootCardinals("_NET_SUPPORTING_WM_CHECK")?.first.map { $0 != 0 } ?? false || !openbox.isRunning
        }
        guard openbox.isRunning else { throw TestFailure("openbox exited: \(openbox.log)") }
        // openbox drops map requests that arrive while it starts up, after it has claimed the
        // screen: probe with fresh windows until one is framed.
        guard Wait.until(timeout: 15, { client.windowManagerFramesWindows(timeout: 0.5) }) else {
            throw TestFailure("openbox on \(display) did not frame a new window within 15 s")
        }
    }

    /// Runs a program on this server to completion and returns its output; throws on failure.
    @discardableResult
    public func run(_ program: String, _ arguments: [String], environment extra: [String: String?] = [:]) throws
        -> String
    {
        let result = try Programs.run(program, arguments, environment: environment.merging(extra) { $1 }, timeout: 15)
        guard result.status == 0 else {
            throw TestFailure("\(program) \(arguments.joined(separator: " ")) failed with status \(result.status)")
        }
        return result.output
    }

    /// `xdotool` with the given arguments.
    public func xdotool(_ arguments: String...) throws {
        try run("xdotool", arguments)
    }

    /// Activates `window` through the window manager (xdotool) and waits until `client` reads it
    /// as `_NET_ACTIVE_WINDOW`. The window manager focuses each window it maps, so a test that
    /// has just mapped several windows activates the last one mapped first: once that is active,
    /// nothing owed to the earlier mappings can follow and take the focus from the one it wants.
    public func activate(_ window: UInt, readBy client: XTestClient) throws {
        try xdotool("windowactivate", "0x" + String(window, radix: 16))
        try Wait.require("window 0x\(String(window, radix: 16)) to be active", timeout: 5) {
            client.rootCardinals("_NET_ACTIVE_WINDOW")?.first == window
        }
    }

    /// The first visible window an `xdotool search` `query` matches (`["--class", "XVkbd"]`),
    /// waited for up to 15 s; throws naming `what` when none appears.
    public func waitForWindow(_ query: [String], what: String) throws -> UInt {
        var found: UInt?
        let appeared = Wait.until(timeout: 15, interval: 0.1) {
            // xdotool exits with 1 while nothing matches.
            let output = try? Programs.run(
                "xdotool", ["search", "--onlyvisible"] + query, environment: environment, timeout: 10)
            found = output?.output.split(separator: "\n").compactMap { UInt($0) }.first
            return found != nil
        }
        guard appeared, let found else { throw TestFailure("timed out after 15 s waiting for \(what)") }
        return found
    }

    /// A window's absolute inner geometry as `xwininfo -id` reports it (the reference every asserted
    /// frame is compared with); nil when the window is gone.
    public func xwininfo(_ window: UInt) throws -> (x: Int, y: Int, width: Int, height: Int)? {
        try xwininfoGeometry(window).map { ($0.x, $0.y, $0.width, $0.height) }
    }

    /// `xwininfo -id`'s absolute position, size and border width of `window`; nil when it is gone.
    private func xwininfoGeometry(_ window: UInt) throws -> (x: Int, y: Int, width: Int, height: Int, border: Int)? {
        // Never pass an empty or symbolic id: xwininfo would wait for a mouse click.
        let id = "0x" + String(window, radix: 16)
        let result = try Programs.run("xwininfo", ["-id", id], environment: environment, timeout: 10)
        guard result.status == 0 else { return nil }
        func field(_ name: String) -> Int? {
            result.output.split(separator: "\n").first { $0.contains(name) }
                .flatMap { $0.split(separator: ":").last }
                .flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }
        guard let x = field("Absolute upper-left X"), let y = field("Absolute upper-left Y"),
            let width = field("Width"), let height = field("Height"), let border = field("Border width")
        else { return nil }
        return (x, y, width, height, border)
    }

    /// The window manager's frame around `window`, found as `xwininfo -tree` finds parents: the
    /// root's child that holds it; nil when no window manager frames it (it is a child of the
    /// root itself) or when it is gone.
    public func frameWindow(of window: UInt) throws -> UInt? {
        var current = window
        for _ in 0..<8 {
            let id = "0x" + String(current, radix: 16)
            let result = try Programs.run("xwininfo", ["-tree", "-id", id], environment: environment, timeout: 10)
            guard result.status == 0 else { return nil }
            func windowID(_ label: String) -> UInt? {
                result.output.split(separator: "\n").first { $0.contains(label) }
                    .flatMap { $0.split(separator: ":").last?.split(separator: " ").first }
                    .flatMap { UInt($0.dropFirst(2), radix: 16) }
            }
            guard let root = windowID("Root window id"), let parent = windowID("Parent window id") else { return nil }
            if parent == root { return current == window ? nil : current }
            current = parent
        }
        return nil
    }

    /// The area a window covers on screen, as `xwininfo` reports it: the outer rectangle (its
    /// border included) of the window manager's frame around it, or of the window itself where
    /// nothing frames it; nil when it is gone.
    public func xwininfoCovered(_ window: UInt) throws -> (x: Int, y: Int, width: Int, height: Int)? {
        guard let outer = try xwininfoGeometry(frameWindow(of: window) ?? window) else { return nil }
        return (outer.x, outer.y, outer.width + 2 * outer.border, outer.height + 2 * outer.border)
    }

    /// Kills the X server (SIGKILL) as a crash would.
    public func killServer() {
        server.signal(SIGKILL)
        _ = server.waitForExit(timeout: 5)
    }

    /// Ends every program started here, the window manager, then the server.
    public func stop() {
        let started = lock.withLock { () -> [ChildProcess] in
            defer { children.removeAll() }
            return children
        }
        for child in started.reversed() { child.stop(grace: 1) }
        server.stop(grace: 2)
        // What those programs started and left behind when they ended (a session bus whose
        // dbus-run-session was stopped first) carries this session's runtime directory.
        for pid in Programs.processes(withRuntimeDirectory: directory + "/runtime") { kill(pid, SIGKILL) }
        // Logs stay for a look after a failure when X11_TEST_KEEP is set.
        if ProcessInfo.processInfo.environment["X11_TEST_KEEP"] == nil {
            try? FileManager.default.removeItem(atPath: directory)
        }
    }
}
