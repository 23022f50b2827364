import Foundation

/// A private D-Bus session bus for one test (squeekboard serves `sm.puri.OSK0` on it), ended by
/// its pid when released.
public final class SessionBus: @unchecked Sendable {
    /// The bus daemon.
    public let process: ChildProcess
    /// `unix:path=...`, for `DBUS_SESSION_BUS_ADDRESS` and `dbus-send --bus`.
    public let address: String

    /// Starts `dbus-daemon --session` listening in `directory`, and waits for its socket.
    public init(directory: String, home: String, timeout: Double = 10) throws {
        let socket = directory + "/bus"
        address = "unix:path=" + socket
        process = try ChildProcess(
            "dbus-daemon", ["--session", "--address=\(address)", "--nofork"],
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
        let result = try Programs.run(
            "dbus-send", ["--bus=\(address)", "--print-reply", "--dest=\(destination)", path, method] + arguments)
        guard result.status == 0 else {
            throw TestFailure("dbus-send \(method) to \(destination) failed with status \(result.status)")
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

    /// Ends the daemon by its pid.
    public func stop() { process.stop() }

    deinit { process.stop() }
}
