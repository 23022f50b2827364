import Foundation

/// A headless KWin (`kwin_wayland --virtual`, 1280x800) with its stack's on-screen keyboard as its
/// input method (maliit-keyboard with KWin 5.27 on Debian 12 and KWin 6.3 on Debian 13;
/// plasma-keyboard with KWin 6.7 on forky, set to show for any input: `mode` 2),
/// on a session bus of its own,
/// all run as `TestUser` (a session bus started by a user refuses
/// other users, root included): programs that talk to it run as that user too, through `run(_:)`
/// and `watch(_:)`. Everything ends by pid when released, maliit (which KWin starts) included.
public final class HeadlessKWin: @unchecked Sendable {
    /// The scratch directories: `xdg` holds the bus and the Wayland socket.
    public let runtime: RuntimeDirectory
    /// The session bus daemon.
    public let bus: ChildProcess
    /// `unix:path=...` of the bus.
    public let busAddress: String
    /// KWin.
    public let kwin: ChildProcess
    /// The absolute path of KWin's Wayland socket.
    public let socket: String
    /// The Debian stack KWin, maliit, the bus and the apps come from.
    public let stack: Stack
    /// The session's user, whom its bus lets in.
    public let user: (uid: uid_t, gid: gid_t)
    private let kbwatchCopy: String
    private var apps: [ChildProcess] = []

    /// Starts the bus and KWin from `stack`, and waits until KWin's virtual keyboard is available.
    /// With `borderlessMaximized`, KWin draws no title bar on a maximized window (as on a phone),
    /// so such a window's content fills the output.
    public init(stack: Stack = .debian12, borderlessMaximized: Bool = false, timeout: Double = 30) throws {
        self.stack = stack
        user = try TestUser.ensure()
        runtime = try RuntimeDirectory(owner: user, prefix: "kbadapter-kwin")
        busAddress = "unix:path=\(runtime.xdg)/bus"
        socket = runtime.xdg + "/wayland-kw"
        let config = runtime.home + "/.config"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try
            ("[Wayland]\nInputMethod=/usr/share/applications/\(Self.inputMethod(on: stack))\nVirtualKeyboardEnabled=true\n"
            + (borderlessMaximized ? "[Windows]\nBorderlessMaximizedWindows=true\n" : ""))
            .write(toFile: config + "/kwinrc", atomically: true, encoding: .utf8)
        chown(config, user.uid, user.gid)
        chown(config + "/kwinrc", user.uid, user.gid)
        // kwin_wayland carries a file capability (cap_sys_resource) that some containers refuse to
        // exec; a plain copy has none. It must keep its name: KWin's platform plugin checks it.
        // Each userland carries such a copy of its own (scripts/userland).
        let bin = runtime.path + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let kwinProgram: String
        if stack.suite != nil {
            kwinProgram = "/opt/keyboard-adapter/kwin_wayland"
        } else {
            try FileManager.default.copyItem(atPath: "/usr/bin/kwin_wayland", toPath: bin + "/kwin_wayland")
            chmod(bin + "/kwin_wayland", 0o755)
            kwinProgram = bin + "/kwin_wayland"
        }
        // The test user may not reach the build directory (a clone under /root): kbwatch is copied.
        kbwatchCopy = bin + "/kbwatch"
        try FileManager.default.copyItem(atPath: Kbwatch.path, toPath: kbwatchCopy)
        chmod(kbwatchCopy, 0o755)

        let environment = [
            "PATH=/usr/bin:/bin", "HOME=\(runtime.home)", "XDG_RUNTIME_DIR=\(runtime.xdg)", "LANG=C.UTF-8",
        ]
        var started: [ChildProcess] = []
        do {
            let (busProgram, busArguments) = try Userland.command(
                ["/usr/bin/env", "-i"] + environment + [
                    "dbus-daemon", "--session", "--address=\(busAddress)", "--nofork", "--nopidfile",
                ], on: stack, as: user, accounts: runtime.path)
            let bus = try ChildProcess(busProgram, busArguments, directory: runtime.path)
            started.append(bus)
            self.bus = bus
            let busSocket = runtime.xdg + "/bus"
            try Wait.require("the session bus socket", timeout: 10) { UnixSocket.accepts(busSocket) || !bus.isRunning }
            // Without touch input KWin keeps the keyboard hidden; KWIN_IM_SHOW_ALWAYS lifts that.
            // maliit's debug output logs the rectangle it settles on.
            let (program, arguments) = try Userland.command(
                ["/usr/bin/env", "-i"] + environment + [
                    "DBUS_SESSION_BUS_ADDRESS=\(busAddress)", "KWIN_IM_SHOW_ALWAYS=1",
                    "QT_LOGGING_RULES=maliit.*.debug=true;kwin_scripting.debug=true", kwinProgram, "--virtual",
                    "--width", "1280",
                    "--height", "800", "--socket", "wayland-kw", "--no-lockscreen", "--no-global-shortcuts",
                    "--no-kactivities",
                ], on: stack, as: user, accounts: runtime.path)
            kwin = try ChildProcess(program, arguments, directory: runtime.path)
            started.append(kwin)
        } catch {
            for process in started.reversed() { process.stop() }
            throw error
        }
        do {
            let kwin = self.kwin
            try Wait.require("KWin's virtual keyboard to be available", timeout: timeout) {
                (try? self.property("available")) == true || !kwin.isRunning
            }
            if !kwin.isRunning { throw TestFailure("kwin_wayland exited early:\n\(kwin.log)") }
            // KWin 6.7 shows its keyboard for touch and stylus input only (`mode` 1) unless told
            // otherwise; this session has neither.
            if usesPlasmaKeyboard { try setMode(2) }
        } catch {
            stop()
            throw error
        }
    }

    /// The desktop file of `stack`'s input method.
    public static func inputMethod(on stack: Stack) -> String {
        stack == .forky ? "org.kde.plasma.keyboard.desktop" : "com.github.maliit.keyboard.desktop"
    }

    /// Whether the session's keyboard is plasma-keyboard (forky), not maliit-keyboard.
    public var usesPlasmaKeyboard: Bool { stack == .forky }

    /// The program of the session's keyboard, which KWin starts.
    public static func keyboardProgram(on stack: Stack) -> String {
        stack == .forky ? "plasma-keyboard" : "maliit-keyboard"
    }

    /// Sets KWin 6.7's `mode` (0 never, 1 for touch and stylus input, 2 for any input).
    public func setMode(_ mode: Int32) throws {
        let result = try send([
            "org.freedesktop.DBus.Properties.Set", "string:org.kde.kwin.VirtualKeyboard", "string:mode",
            "variant:int32:\(mode)",
        ])
        if result.status != 0 { throw TestFailure("setting mode failed: \(result.output)") }
    }

    /// The variables of the session, as a client of it needs them.
    public var environment: [String] {
        [
            "PATH=/usr/bin:/bin", "HOME=\(runtime.home)", "XDG_RUNTIME_DIR=\(runtime.xdg)", "LANG=C.UTF-8",
            "DBUS_SESSION_BUS_ADDRESS=\(busAddress)", "WAYLAND_DISPLAY=\(socket)", "XDG_SESSION_TYPE=wayland",
        ]
    }

    /// Runs `command` as the session's user in its environment, to completion.
    public func run(_ command: [String], timeout: Double = 30) throws -> (status: Int32, output: String) {
        let (program, arguments) = TestUser.command(["/usr/bin/env", "-i"] + environment + command, as: user)
        return try Programs.run(program, arguments, timeout: timeout)
    }

    /// The copy of kbwatch the session's user can reach.
    public var kbwatchPath: String { kbwatchCopy }

    /// Starts `program` (a host program, copied where the session's user can reach it) with
    /// `arguments` and `variables` as the session's user, in the session's environment; ended
    /// with the session.
    public func launch(_ program: String, _ arguments: [String] = [], variables: [String] = []) throws -> ChildProcess {
        let copy = runtime.path + "/bin/" + URL(fileURLWithPath: program).lastPathComponent
        if !FileManager.default.fileExists(atPath: copy) {
            try FileManager.default.copyItem(atPath: program, toPath: copy)
        }
        chmod(copy, 0o755)
        let (command, commandArguments) = TestUser.command(
            ["/usr/bin/env", "-i"] + environment + variables + [copy] + arguments, as: user)
        let app = try ChildProcess(command, commandArguments, directory: runtime.path)
        apps.append(app)
        return app
    }

    /// Runs kbwatch (a copy the user can reach) with `arguments` as the session's user; with
    /// `errors` its output holds its standard error too.
    public func kbwatch(_ arguments: [String], errors: Bool = false) throws -> (status: Int32, output: String) {
        try run((errors ? ["/bin/sh", "-c", "exec \"$@\" 2>&1", "sh"] : []) + [kbwatchCopy] + arguments)
    }

    /// Starts kbwatch with `arguments` as the session's user, its lines stamped as they come.
    public func watch(_ arguments: [String]) throws -> WatchedProcess {
        let (program, arguments) = TestUser.command(
            ["/usr/bin/env", "-i"] + environment + [kbwatchCopy] + arguments, as: user)
        return try WatchedProcess(program, arguments)
    }

    /// Starts `command` as the session's user, its lines stamped as they come.
    public func watchCommand(_ command: [String]) throws -> WatchedProcess {
        let (program, arguments) = TestUser.command(["/usr/bin/env", "-i"] + environment + command, as: user)
        return try WatchedProcess(program, arguments)
    }

    /// Starts a GTK 3 Wayland app (`/usr/bin/python3` running `script`) as the session's user,
    /// ended with the session.
    public func launchGTK(_ script: String, name: String) throws -> ChildProcess {
        let path = try runtime.write(name, script)
        let (program, arguments) = try Userland.command(
            ["/usr/bin/env", "-i"] + environment + ["GDK_BACKEND=wayland", "NO_AT_BRIDGE=1", "/usr/bin/python3", path],
            on: stack, as: user, accounts: runtime.path)
        let app = try ChildProcess(program, arguments, directory: runtime.path)
        apps.append(app)
        return app
    }

    /// A boolean property of KWin's `/VirtualKeyboard`, read on the bus.
    public func property(_ name: String) throws -> Bool? {
        let result = try send([
            "org.freedesktop.DBus.Properties.Get", "string:org.kde.kwin.VirtualKeyboard", "string:\(name)",
        ])
        guard result.status == 0 else { return nil }
        return result.output.contains("boolean true") ? true : result.output.contains("boolean false") ? false : nil
    }

    /// Shows the keyboard as Plasma's button does (`forceActivate`).
    public func forceActivate() throws {
        let result = try send(["org.kde.kwin.VirtualKeyboard.forceActivate"])
        if result.status != 0 { throw TestFailure("forceActivate failed: \(result.output)") }
    }

    /// Hides the keyboard: `active` set to false.
    public func deactivate() throws {
        let result = try send([
            "org.freedesktop.DBus.Properties.Set", "string:org.kde.kwin.VirtualKeyboard", "string:active",
            "variant:boolean:false",
        ])
        if result.status != 0 { throw TestFailure("setting active failed: \(result.output)") }
    }

    /// Calls a method of KWin's `/VirtualKeyboard` with dbus-send, as the session's user.
    private func send(_ call: [String]) throws -> (status: Int32, output: String) {
        try run(
            ["dbus-send", "--bus=\(busAddress)", "--print-reply", "--dest=org.kde.KWin", "/VirtualKeyboard"] + call)
    }

    /// Waits until KWin's `visible` is `visible`.
    public func waitForVisible(_ visible: Bool, timeout: Double = 10) throws {
        try Wait.require("KWin's visible to be \(visible)", timeout: timeout) {
            (try? self.property("visible")) == visible
        }
    }

    /// The last rectangle maliit reported (`x y w h`), from its debug output in KWin's log.
    public var maliitRectangle: String? {
        let marker = "keyboard is reporting <x y w h>: < "
        guard let line = kwin.log.components(separatedBy: "\n").last(where: { $0.contains(marker) }),
            let range = line.range(of: marker)
        else { return nil }
        return line[range.upperBound...].components(separatedBy: " >").first
    }

    /// Ends KWin, maliit, the bus and anything else of the session.
    public func stop() {
        for app in apps { app.stop() }
        kwin.stop()
        bus.stop()
        for pid in Programs.processes(withRuntimeDirectory: runtime.xdg) { kill(pid, SIGKILL) }
    }

    deinit { stop() }
}
