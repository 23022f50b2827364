import Foundation

#if canImport(Testing)
    import Testing
#endif

/// The Debian stacks a compositor test runs on: Debian 12's programs from the host, or Debian 13's
/// from the userland `scripts/debian13-userland` builds beside it.
public enum Stack: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The host's own programs (KWin 5.27, sway 1.7, phoc 0.24, squeekboard 1.21).
    case debian12
    /// The Debian 13 userland's (KWin 6.3, sway 1.10, phoc 0.46, squeekboard 1.43, labwc 0.8).
    case debian13

    /// `Debian 12` or `Debian 13`.
    public var description: String { self == .debian12 ? "Debian 12" : "Debian 13" }
}

/// Runs programs of the Debian 13 userland with bubblewrap: the userland as `/`, with `/tmp` (where
/// every test's runtime directory lives) bound at the same path, so the host's kbwatch and test code
/// reach the sockets of the compositors, keyboards and buses inside. bubblewrap needs no root (it
/// uses a user namespace), so an ordinary user runs these tests too once the userland exists.
public enum Userland {
    /// The userland's root: `$KEYBOARD_ADAPTER_USERLAND/root`, by default under
    /// `/var/cache/keyboard-adapter/trixie`.
    public static var root: String {
        let base = ProcessInfo.processInfo.environment["KEYBOARD_ADAPTER_USERLAND"].flatMap { $0.isEmpty ? nil : $0 }
        return (base ?? "/var/cache/keyboard-adapter/trixie") + "/root"
    }

    /// True when the userland is there and is Debian 13.
    public static var exists: Bool {
        let release = (try? String(contentsOfFile: root + "/etc/os-release", encoding: .utf8)) ?? ""
        return release.contains("VERSION_ID=\"13\"") && FileManager.default.isExecutableFile(atPath: "/usr/bin/bwrap")
    }

    /// Whether a test of `stack` that needs `programs` (names inside the userland for Debian 13, on
    /// the host for Debian 12) can run. Without them it prints why and returns false; under CI that
    /// is a failure, never a skip.
    public static func ready(_ stack: Stack, _ programs: [String]) throws -> Bool {
        guard stack == .debian13 else { return try Programs.ready(programs + ["setpriv"]) }
        var missing: [String] = []
        if !exists { missing.append("the Debian 13 userland (run scripts/debian13-userland; root needed once)") }
        for program in programs where exists {
            let found = ["/usr/bin/", "/usr/sbin/", "/opt/keyboard-adapter/"].contains {
                FileManager.default.isExecutableFile(atPath: root + $0 + program)
            }
            if !found { missing.append("\(program) in the Debian 13 userland") }
        }
        guard !missing.isEmpty else { return true }
        let reason = "missing " + missing.joined(separator: ", ")
        if ProcessInfo.processInfo.environment["CI"] == "true" { throw TestFailure(reason) }
        print("skipped: \(reason)")
        return false
    }

    /// The program and arguments that run `command` on `stack` as `user`: as they are on Debian 12
    /// (through `TestUser`), inside the userland on Debian 13. `passwd` names the directory where
    /// the user's passwd and group lines are written (dbus-daemon refuses an unknown uid).
    public static func command(
        _ command: [String], on stack: Stack, as user: (uid: uid_t, gid: gid_t), accounts directory: String
    ) throws -> (String, [String]) {
        guard stack == .debian13 else { return TestUser.command(command, as: user) }
        let (passwd, group) = try writeAccounts(for: user, in: directory)
        let wrapped =
            [
                "bwrap", "--bind", root, "/", "--dev", "/dev", "--proc", "/proc", "--ro-bind", "/sys", "/sys",
                "--bind", "/tmp", "/tmp",
                // The host's /tmp/.X11-unix belongs to an unmapped root inside, which wlroots'
                // Xwayland refuses (labwc then exits): the sandbox has its own.
                "--tmpfs", "/tmp/.X11-unix",
                "--ro-bind", passwd, "/etc/passwd", "--ro-bind", group, "/etc/group",
                "--die-with-parent", "--",
            ] + command
        return TestUser.command(wrapped, as: user)
    }

    /// Starts `command`, a Wayland client of the compositor at `socket`, in the userland, with only
    /// the variables a client needs and `environment`: as the test user, or as the test process's
    /// own user when `asTestUser` is false (a client of a session bus the test process runs).
    public static func startClient(
        _ command: [String], socket: String, runtime: RuntimeDirectory, environment: [String: String] = [:],
        asTestUser: Bool = true
    ) throws -> ChildProcess {
        let user = asTestUser ? try TestUser.ensure() : (getuid(), getgid())
        let variables = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let (program, arguments) = try Userland.command(
            [
                "/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=\(runtime.home)", "XDG_RUNTIME_DIR=\(runtime.xdg)",
                "WAYLAND_DISPLAY=\(socket)",
            ] + variables + command, on: .debian13, as: user, accounts: runtime.path)
        return try ChildProcess(program, arguments, directory: runtime.path)
    }

    /// The userland's passwd and group with `user` added, written into `directory`.
    private static func writeAccounts(for user: (uid: uid_t, gid: gid_t), in directory: String) throws
        -> (String, String)
    {
        let passwd = (try? String(contentsOfFile: root + "/etc/passwd", encoding: .utf8)) ?? ""
        let group = (try? String(contentsOfFile: root + "/etc/group", encoding: .utf8)) ?? ""
        let passwdPath = directory + "/userland-passwd"
        let groupPath = directory + "/userland-group"
        let known = passwd.split(separator: "\n").contains {
            $0.split(separator: ":").dropFirst(2).first == "\(user.uid)"
        }
        let account = known ? "" : "kbadapter:x:\(user.uid):\(user.gid)::/tmp:/usr/sbin/nologin\n"
        let groupKnown = group.split(separator: "\n").contains {
            $0.split(separator: ":").dropFirst(2).first == "\(user.gid)"
        }
        try (passwd + account).write(toFile: passwdPath, atomically: true, encoding: .utf8)
        try (group + (groupKnown ? "" : "kbadapter:x:\(user.gid):\n")).write(
            toFile: groupPath, atomically: true, encoding: .utf8)
        chmod(passwdPath, 0o644)
        chmod(groupPath, 0o644)
        return (passwdPath, groupPath)
    }
}
