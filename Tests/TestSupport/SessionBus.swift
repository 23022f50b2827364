import Foundation

/// A private D-Bus session bus for one test (squeekboard serves `sm.puri.OSK0` on it), ended by
/// its pid when released.
public final class SessionBus: @unchecked Sendable {
    /// The bus daemon.
    public let process: ChildProcess
    /// `unix:path=...`, for `DBUS_SESSION_BUS_ADDRESS` and `dbus-send --bus`.
    public let address: String

    /// Starts `dbus-daemon --session` listening in `directory`, and waits for its socket. With
    /// `serviceDirectory`, the bus activates the services described there (before the standard
    /// ones), so that a test can tell whether something asked for a service to be started. With a
    /// `stack` other than Debian 12, the daemon is that userland's (bubblewrap, the host's pids).
    /// With `standardServiceDirectories` false, the bus activates only what `serviceDirectory`
    /// describes, never a service installed on the machine (a test of a bus that knows no service
    /// must not find a kbwatch another test installed meanwhile).
    public init(
        directory: String, home: String, serviceDirectory: String? = nil, standardServiceDirectories: Bool = true,
        timeout: Double = 10, stack: Stack = .debian12
    ) throws {
        let socket = directory + "/bus"
        address = "unix:path=" + socket
        var arguments = ["--session", "--address=\(address)", "--nofork"]
        if let serviceDirectory {
            let config = directory + "/session-bus.conf"
            let lines = [
                "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"",
                " \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">",
                "<busconfig>", "  <type>session</type>", "  <listen>\(address)</listen>", "  <auth>EXTERNAL</auth>",
                "  <servicedir>\(serviceDirectory)</servicedir>",
                standardServiceDirectories ? "  <standard_session_servicedirs/>" : "",
                "  <policy context=\"default\">", "    <allow send_destination=\"*\" eavesdrop=\"true\"/>",
                "    <allow eavesdrop=\"true\"/>", "    <allow own=\"*\"/>", "  </policy>", "</busconfig>",
            ]
            try (lines.joined(separator: "\n") + "\n").write(toFile: config, atomically: true, encoding: .utf8)
            arguments = ["--config-file=\(config)", "--nofork"]
        }
        let (program, programArguments) =
            stack.suite == nil
            ? ("dbus-daemon", arguments)
            : try Userland.command(
                ["/usr/bin/dbus-daemon"] + arguments, on: stack, as: (getuid(), getgid()), accounts: directory)
        process = try ChildProcess(
            program, programArguments,
            environment: ["HOME": home, "DISPLAY": nil, "WAYLAND_DISPLAY": nil],
            directory: directory)
        let daemon = process
        do {
            try Wait.require("the session bus socket \(socket)", timeout: timeout) {
                FileManager.default.fileExists(atPath: socket) || !daemon.isRunning
            }
            if !daemon.isRunning { throw TestFailure("dbus-daemon exited early:\n\(daemon.log)") }
        } catch {
            daemon.stop()
            throw error
        }
    }

    /// Calls `method` (`interface.Method`) on `destination` at `path` with `arguments` in
    /// dbus-send's notation (`boolean:true`), waiting for the reply; returns the printed reply.
    @discardableResult
    public func call(_ destination: String, _ path: String, _ method: String, _ arguments: [String] = []) throws
        -> String
    {
        // Its standard error too, to say why a call failed.
        let command = ["/bin/sh", "-c", "exec \"$@\" 2>&1", "sh", "dbus-send"]
        var result = (status: Int32(0), output: "")
        for attempt in 1...3 {
            result = try Programs.run(
                command[0],
                Array(command.dropFirst())
                    + ["--bus=\(address)", "--print-reply", "--dest=\(destination)", path, method] + arguments)
            // A bus daemon that did not answer, or did not take the connection (a machine loaded by
            // every test at once), is asked again; any other failure is the answer.
            let busBusy = result.output.contains("NoReply") || result.output.contains("Failed to open connection")
            guard result.status != 0, busBusy, attempt < 3 else { break }
        }
        guard result.status == 0 else {
            throw TestFailure(
                "dbus-send \(method) to \(destination) failed with status \(result.status): \(result.output)")
        }
        return result.output
    }

    /// Waits until some client owns `name` on the bus.
    public func waitForName(_ name: String, timeout: Double = 15) throws {
        let owned = Wait.until(timeout: timeout, interval: 0.1) {
            let reply = try? call(
                "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner",
                ["string:\(name)"])
            return reply?.contains("boolean true") ?? false
        }
        if !owned { throw TestFailure("timed out after \(timeout) s waiting for \(name) on the session bus") }
    }

    /// Sets variables of the environment the bus starts (activates) services in.
    public func setActivationEnvironment(_ variables: [String: String]) throws {
        let pairs = variables.sorted { $0.key < $1.key }.map { "\($0.key),\($0.value)" }.joined(separator: ",")
        try call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.UpdateActivationEnvironment",
            ["dict:string:string:\(pairs)"])
    }

    /// True when some client owns `name` now.
    public func hasOwner(_ name: String) throws -> Bool {
        try call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner", ["string:\(name)"]
        ).contains("boolean true")
    }

    /// The unique name that owns `name` now, nil when none does.
    public func owner(of name: String) throws -> String? {
        let reply = try? call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.GetNameOwner", ["string:\(name)"])
        return reply?.firstMatch(of: /string "(:[0-9.]+)"/).map { String($0.1) }
    }

    /// The pid of the connection `name`, as the bus says.
    public func pid(of name: String) throws -> Int32? {
        let reply = try call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.GetConnectionUnixProcessID",
            ["string:\(name)"])
        return reply.firstMatch(of: /uint32 (\d+)/).flatMap { Int32($0.1) }
    }

    /// The unique names of the connections process `pid` has on the bus.
    public func uniqueNames(of pid: Int32) throws -> [String] {
        let listed = try call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.ListNames")
        return listed.matches(of: /string "(:[0-9.]+)"/).map { String($0.1) }.filter {
            (try? self.pid(of: $0)) == pid
        }
    }

    /// Ends the daemon by its pid, and what it started (activated services) after it.
    public func stop() { process.stopWithDescendants() }

    deinit { process.stopWithDescendants() }
}
