import Foundation

/// onboard on an `X11Session`, on a session bus of its own (`dbus-run-session`), with its
/// settings in dconf on that bus so that a test can change them while it runs. Without a bus of
/// its own, onboard would start (or find) a shared one and leave stray daemons behind.
public final class Onboard: @unchecked Sendable {
    /// `dbus-run-session`, which owns the bus and ends it when onboard exits.
    public let runner: ChildProcess
    /// onboard's own process id.
    public let pid: Int32
    /// The address of the private session bus.
    public let busAddress: String
    private let session: X11Session

    /// A setting: schema, key and value in `gsettings` syntax.
    public typealias Setting = (schema: String, key: String, value: String)

    /// Settings that keep onboard to its keyboard window: no status icon, no icon palette.
    public static let quiet: [Setting] = [
        ("org.onboard", "show-status-icon", "false"),
        ("org.onboard.icon-palette", "in-use", "false"),
        ("org.onboard", "start-minimized", "false"),
    ]

    /// Docked at the bottom edge of the screen, where it slides in and out.
    public static let dockedBottom: [Setting] =
        quiet + [("org.onboard.window", "docking-enabled", "true"), ("org.onboard.window", "docking-edge", "bottom")]

    /// Starts onboard with `settings` applied first, on a session bus of its own.
    public convenience init(on session: X11Session, settings: [Setting]) throws {
        try self.init(on: session, bus: nil, settings: settings)
    }

    /// Starts onboard with `settings` applied first, on `bus` (which outlives it and may be ended
    /// while it runs), or on a bus of its own when nil.
    public init(on session: X11Session, bus: SessionBus?, settings: [Setting]) throws {
        self.session = session
        let tag = UUID().uuidString.prefix(8)
        let busFile = "\(session.directory)/onboard-\(tag).bus"
        let pidFile = "\(session.directory)/onboard-\(tag).pid"
        let script = "\(session.directory)/onboard-\(tag).sh"
        var lines = ["#!/bin/sh", "set -e", "echo \"$DBUS_SESSION_BUS_ADDRESS\" > '\(busFile).tmp'"]
        for setting in settings {
            lines.append("gsettings set \(setting.schema) \(setting.key) \"\(setting.value)\"")
        }
        lines += ["mv '\(busFile).tmp' '\(busFile)'", "echo $$ > '\(pidFile)'", "exec onboard"]
        try (lines.joined(separator: "\n") + "\n").write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        let runner =
            try bus.map { try session.start(script, environment: ["DBUS_SESSION_BUS_ADDRESS": $0.address]) }
            ?? session.start("dbus-run-session", ["--", script])
        self.runner = runner
        var address = ""
        var pid: Int32 = 0
        try Wait.require("onboard's session bus and pid", timeout: 15) {
            address = ((try? String(contentsOfFile: busFile, encoding: .utf8)) ?? "").trimmingCharacters(
                in: .whitespacesAndNewlines)
            pid =
                Int32(
                    ((try? String(contentsOfFile: pidFile, encoding: .utf8)) ?? "").trimmingCharacters(
                        in: .whitespacesAndNewlines)) ?? 0
            return (!address.isEmpty && pid > 0) || !runner.isRunning
        }
        guard runner.isRunning else { throw TestFailure("onboard's session ended at once: \(runner.log)") }
        busAddress = address
        self.pid = pid
    }

    deinit { stop() }

    /// Calls a method of onboard's keyboard interface (`Show`, `Hide`, `ToggleVisible`).
    public func call(_ method: String) throws {
        try session.run(
            "dbus-send",
            [
                "--bus=\(busAddress)", "--print-reply", "--dest=org.onboard.Onboard", "/org/onboard/Onboard/Keyboard",
                "org.onboard.Onboard.Keyboard.\(method)",
            ])
    }

    /// onboard's `Visible` property, read on its bus (dbus-send never starts onboard for this: it
    /// runs already); nil when it cannot be read.
    public func visible() -> Bool? {
        guard
            let result = try? Programs.run(
                "dbus-send",
                [
                    "--bus=\(busAddress)", "--print-reply", "--dest=org.onboard.Onboard",
                    "/org/onboard/Onboard/Keyboard",
                    "org.freedesktop.DBus.Properties.Get", "string:org.onboard.Onboard.Keyboard", "string:Visible",
                ]), result.status == 0
        else { return nil }
        if result.output.contains("boolean true") { return true }
        return result.output.contains("boolean false") ? false : nil
    }

    /// Changes a setting while onboard runs.
    public func set(_ schema: String, _ key: String, _ value: String) throws {
        try session.run(
            "gsettings", ["set", schema, key, value], environment: ["DBUS_SESSION_BUS_ADDRESS": busAddress])
    }

    /// Ends onboard by its pid, lets `dbus-run-session` end its bus, and ends by pid whatever
    /// the bus started that is still there (a runner stopped too early leaves its daemon behind).
    public func stop() {
        let started = ChildProcess.descendants(of: runner.pid)
        if pid > 0, kill(pid, 0) == 0, !isZombie(pid) {
            kill(pid, SIGTERM)
            if !Wait.until(timeout: 2, { kill(pid, 0) != 0 || isZombie(pid) }) { kill(pid, SIGKILL) }
        }
        _ = runner.waitForExit(timeout: 3)
        runner.stop(grace: 1)
        for leftover in started where leftover != pid && kill(leftover, 0) == 0 && !isZombie(leftover) {
            kill(leftover, SIGTERM)
        }
    }

    private func isZombie(_ pid: Int32) -> Bool {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return stat.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).hasPrefix("Z") ?? true
    }
}
