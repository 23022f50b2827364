import Foundation

/// Phosh's compositor, phoc, nested in a headless sway as Phosh phones run it, with what it needs
/// to show squeekboard on its own: a session bus with `screen-keyboard-enabled` set through
/// gsettings, and a seat. Headless sway's seat has no devices, and phoc's Wayland backend makes
/// input devices only for what the parent seat has, so a hidden wvkbd gives sway's seat a
/// keyboard (a virtual keyboard is a seat device there); phoc then has a seat with a keyboard.
/// Everything ends by pid when released, bus-activated services (dconf) included.
public final class NestedPhoc: @unchecked Sendable {
    /// The parent compositor.
    public let sway: HeadlessSway
    /// The session bus of phoc's session (dconf, squeekboard).
    public let bus: SessionBus
    /// phoc's own scratch directories: its runtime directory holds its socket.
    public let runtime: RuntimeDirectory
    /// The absolute path of phoc's Wayland socket.
    public let socket: String
    /// The Debian stack sway, phoc and the session's programs come from.
    public let stack: Stack
    private var processes: [ChildProcess] = []

    /// Starts sway (no window borders, so that phoc's window fills its output), the seat keyboard,
    /// the bus with the setting, and phoc; returns once phoc's socket accepts connections.
    public init(stack: Stack = .debian12, timeout: Double = 15) throws {
        self.stack = stack
        sway = try HeadlessSway(extraConfig: "default_border none\ndefault_floating_border none\n", stack: stack)
        let me = (uid: getuid(), gid: getgid())
        do {
            runtime = try RuntimeDirectory(owner: me, prefix: "kbadapter-phoc")
            bus = try SessionBus(directory: runtime.path, home: runtime.home)
        } catch {
            sway.stop()
            throw error
        }
        socket = runtime.xdg + "/wayland-0"
        do {
            try start()
        } catch {
            stop()
            throw error
        }
    }

    private func start(timeout: Double = 15) throws {
        let seatKeyboard = try sway.startClient(["wvkbd-mobintl", "--hidden"])
        processes.append(seatKeyboard)
        try Wait.require("a keyboard on sway's seat", timeout: timeout) {
            (try? sway.message(["-t", "get_seats", "-r"]))?.contains("\"capabilities\": 2") ?? false
                || !seatKeyboard.isRunning
        }
        if !seatKeyboard.isRunning { throw TestFailure("wvkbd exited early:\n\(seatKeyboard.log)") }
        // dconf-service, started by the bus, must share the clients' home and runtime directory.
        try bus.setActivationEnvironment(session)
        let gsettings = try Programs.run(
            "gsettings", ["set", "org.gnome.desktop.a11y.applications", "screen-keyboard-enabled", "true"],
            environment: environment)
        guard gsettings.status == 0 else { throw TestFailure("gsettings set failed: \(gsettings.output)") }
        let config = try runtime.write("phoc.ini", "[core]\nxwayland = false\n")
        var parent = session
        parent["WAYLAND_DISPLAY"] = sway.socket
        parent["WLR_BACKENDS"] = "wayland"
        parent["WLR_RENDERER"] = "pixman"
        let phoc = try launch("phoc", ["-C", config], environment: parent)
        let path = socket
        try Wait.require("phoc's Wayland socket \(path)", timeout: timeout) {
            UnixSocket.accepts(path) || !phoc.isRunning
        }
        if !phoc.isRunning { throw TestFailure("phoc exited early:\n\(phoc.log)") }
    }

    /// The variables of phoc's session: a home and a runtime directory of its own, the bus.
    private var session: [String: String] {
        [
            "HOME": runtime.home, "XDG_CONFIG_HOME": runtime.home + "/.config", "XDG_RUNTIME_DIR": runtime.xdg,
            "DBUS_SESSION_BUS_ADDRESS": bus.address, "LANG": "C.UTF-8",
        ]
    }

    /// What a client of phoc needs (the test's own environment changed by these).
    public var environment: [String: String?] {
        var variables: [String: String?] = session.mapValues { $0 }
        variables["WAYLAND_DISPLAY"] = socket
        variables["DISPLAY"] = nil
        variables["GDK_BACKEND"] = "wayland"
        variables["NO_AT_BRIDGE"] = "1"  // no accessibility bus daemons to clean up after
        return variables
    }

    /// Starts `program` as a client of phoc's session, in a clean environment (`env -i` execs it,
    /// so the pid is the program's), ended with the session.
    public func launch(_ program: String, _ arguments: [String], environment: [String: String]? = nil) throws
        -> ChildProcess
    {
        let variables = (environment ?? clientVariables).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        // The session bus is the test process's: its programs run as its user, on Debian 13 in the
        // userland (the host's dconf writes the settings file they read, at the same path).
        let (command, commandArguments) = try Userland.command(
            ["/usr/bin/env", "-i", "PATH=/usr/bin:/bin"] + variables + [program] + arguments, on: stack,
            as: (getuid(), getgid()), accounts: runtime.path)
        let process = try ChildProcess(command, commandArguments, directory: runtime.path)
        processes.append(process)
        return process
    }

    private var clientVariables: [String: String] {
        environment.compactMapValues { $0 }
    }

    /// Ends every program of the session in the reverse order of their start, then the bus, what
    /// it started, and sway.
    public func stop() {
        for process in processes.reversed() { process.stop() }
        processes = []
        bus.stop()
        for pid in Programs.processes(withRuntimeDirectory: runtime.xdg) { kill(pid, SIGKILL) }
        sway.stop()
    }

    deinit { stop() }
}
