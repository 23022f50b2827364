import Foundation

#if canImport(Testing)
    import Testing
#endif

/// The Debian stacks a compositor test runs on: Debian 12's programs from the host, or a newer
/// suite's from the userland `scripts/userland` builds beside it.
public enum Stack: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The host's own programs (GNOME Shell 43, KWin 5.27, sway 1.7, phoc 0.24, squeekboard 1.21).
    case debian12
    /// Debian 13's (GNOME Shell 48, KWin 6.3 with maliit, sway 1.10, phoc 0.46, labwc 0.8).
    case debian13
    /// forky's, Debian's testing (GNOME Shell 50, KWin 6.7 with plasma-keyboard, sway 1.12, phoc
    /// 0.58 with Stevia, labwc 0.20).
    case forky
    /// sid's, Debian's unstable: only GNOME Shell 51, which no other suite has yet.
    case sid

    /// The stacks whose userland carries the compositors and keyboards other than GNOME's (sway,
    /// wvkbd, labwc, phoc, squeekboard, KWin, weston): every one but sid.
    public static let compositors: [Stack] = [.debian12, .debian13, .forky]

    /// The stacks with maliit-keyboard as KWin's input method: Debian 12 (KWin 5.27) and 13 (KWin
    /// 6.3); forky has plasma-keyboard instead.
    public static let maliit: [Stack] = [.debian12, .debian13]

    /// The stacks with KWin 6 (and the package's KWin script): Debian 13 (KWin 6.3 with
    /// maliit-keyboard) and forky (KWin 6.7 with plasma-keyboard).
    public static let kwin6: [Stack] = [.debian13, .forky]

    /// The stacks with labwc and with Phosh's own keyboard (phosh-osk-stub, then Stevia).
    public static let newerWlroots: [Stack] = [.debian13, .forky]

    /// The Debian suite whose userland has the stack's programs; nil for the host's own.
    public var suite: String? {
        switch self {
        case .debian12: nil
        case .debian13: "trixie"
        case .forky: "forky"
        case .sid: "sid"
        }
    }

    /// GNOME Shell's major version on this stack.
    public var gnomeShellMajor: Int {
        switch self {
        case .debian12: 43
        case .debian13: 48
        case .forky: 50
        case .sid: 51
        }
    }

    /// `Debian 12`, `Debian 13`, `Debian forky`, `Debian sid`.
    public var description: String {
        switch self {
        case .debian12: "Debian 12"
        case .debian13: "Debian 13"
        case .forky: "Debian forky"
        case .sid: "Debian sid"
        }
    }
}

/// Runs programs of a newer Debian suite's userland with bubblewrap: the userland as `/`, with
/// `/tmp` (where every test's runtime directory lives) bound at the same path, so the host's
/// kbwatch and test code reach the sockets of the compositors, keyboards and buses inside.
/// bubblewrap needs no root (it uses a user namespace), so an ordinary user runs these tests too
/// once the userland exists.
public enum Userland {
    /// Where the userlands are: `$KEYBOARD_ADAPTER_USERLANDS`, by default `/var/cache/keyboard-adapter`
    /// (as `scripts/userland` builds them).
    public static var base: String {
        ProcessInfo.processInfo.environment["KEYBOARD_ADAPTER_USERLANDS"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "/var/cache/keyboard-adapter"
    }

    /// Another root that stands for one stack's userland: a copy of it with more installed (a
    /// test's overlay, where apt installed the project's packages), prepared to be chrooted into
    /// (`/dev`, `/proc`, `/sys` and the host's `/tmp` mounted in it, the test user in its passwd).
    /// Its programs run with chroot(8) rather than bubblewrap, so that they share the host's mount
    /// namespace and one root: the installed service then takes its clients for unsandboxed
    /// apps (a bubblewrap sandbox is a mount namespace of its own, which it judges a sandbox).
    public struct Replacement: Sendable {
        /// The stack whose userland it replaces (one other than Debian 12).
        public let stack: Stack
        /// The directory used as `/` instead.
        public let root: String

        /// `root` instead of `stack`'s userland.
        public init(stack: Stack, root: String) {
            self.stack = stack
            self.root = root
        }
    }

    /// The root that replaces a stack's userland for the task that sets it (`withValue`): every
    /// helper that runs a program of that stack (`command`, `startClient`, `HeadlessSway`,
    /// `SessionBus`, `HeadlessGnomeShell`) runs it from there; nil: the userland itself.
    @TaskLocal public static var replacement: Replacement?

    /// The root of `stack`'s userland (`BASE/SUITE/root`), or the `replacement` for it; `/` for
    /// Debian 12, the host's own.
    public static func root(_ stack: Stack) -> String {
        if let replacement, replacement.stack == stack, stack.suite != nil { return replacement.root }
        return stack.suite.map { base + "/" + $0 + "/root" } ?? "/"
    }

    /// True when `stack`'s userland is there and is that suite, and bubblewrap can run it: the
    /// suite its apt sources name and, but for sid, its `VERSION_CODENAME` (forky and sid have no
    /// `VERSION_ID`; sid's os-release names testing's codename, as unstable ships testing's
    /// base-files, so only its sources tell it from forky).
    public static func exists(_ stack: Stack) -> Bool {
        guard let suite = stack.suite else { return true }
        let release = (try? String(contentsOfFile: root(stack) + "/etc/os-release", encoding: .utf8)) ?? ""
        let codename = release.split(separator: "\n").first { $0.hasPrefix("VERSION_CODENAME=") }?.dropFirst(17)
        let sources = (try? String(contentsOfFile: root(stack) + "/etc/apt/sources.list", encoding: .utf8)) ?? ""
        let named = sources.split(separator: "\n").contains { line in
            let words = line.split(separator: " ")
            return words.first == "deb" && words.count >= 3 && words[2] == suite
        }
        return named && (stack == .sid || codename.map(String.init) == suite)
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/bwrap")
    }

    /// Whether `path`, a program's path inside `stack`'s userland, is an executable there.
    public static func isExecutable(_ path: String, on stack: Stack) -> Bool {
        guard stack.suite != nil else { return FileManager.default.isExecutableFile(atPath: path) }
        return FileManager.default.isExecutableFile(atPath: root(stack) + path)
    }

    /// Whether a test of `stack` that needs `programs` (names inside the userland, or on the host
    /// for Debian 12) can run. Without them the running test is skipped with the reason (Swift
    /// Testing reports it skipped, never passed: see `Programs.skip`); under CI that is a failure.
    public static func ready(_ stack: Stack, _ programs: [String]) throws -> Bool {
        guard let suite = stack.suite else { return try Programs.ready(programs + ["setpriv"]) }
        var missing: [String] = []
        let present = exists(stack)
        if !present {
            missing.append("the \(stack) userland (run scripts/userland \(suite); root needed once)")
        }
        for program in programs where present {
            let found = ["/usr/bin/", "/usr/sbin/", "/opt/keyboard-adapter/"].contains {
                isExecutable($0 + program, on: stack)
            }
            if !found { missing.append("\(program) in the \(stack) userland") }
        }
        guard !missing.isEmpty else { return true }
        try Programs.skip("missing " + missing.joined(separator: ", "))
        return false
    }

    /// The program and arguments that run `command` on `stack` as `user`: as they are on Debian 12
    /// (through `TestUser`), inside the stack's userland otherwise (with chroot in its `replacement`).
    /// `passwd` names the directory where the user's passwd and group lines are written (dbus-daemon
    /// refuses an unknown uid).
    public static func command(
        _ command: [String], on stack: Stack, as user: (uid: uid_t, gid: gid_t), accounts directory: String
    ) throws -> (String, [String]) {
        guard stack.suite != nil else { return TestUser.command(command, as: user) }
        if let replacement, replacement.stack == stack {
            let (program, arguments) = TestUser.command(command, as: user)
            return ("chroot", [replacement.root, program] + arguments)
        }
        let userlandRoot = root(stack)
        let (passwd, group) = try writeAccounts(for: user, in: directory, root: userlandRoot)
        let wrapped =
            [
                "bwrap", "--bind", userlandRoot, "/", "--dev", "/dev", "--proc", "/proc", "--ro-bind", "/sys", "/sys",
                "--bind", "/tmp", "/tmp",
                // The host's /tmp/.X11-unix belongs to an unmapped root inside, which wlroots'
                // Xwayland refuses (labwc then exits): the sandbox has its own.
                "--tmpfs", "/tmp/.X11-unix",
                "--ro-bind", passwd, "/etc/passwd", "--ro-bind", group, "/etc/group",
                "--die-with-parent", "--",
            ] + command
        return TestUser.command(wrapped, as: user)
    }

    /// Starts `command`, a Wayland client of the compositor at `socket`, in `stack`'s userland, with only
    /// the variables a client needs and `environment`: as the test user, or as the test process's
    /// own user when `asTestUser` is false (a client of a session bus the test process runs).
    public static func startClient(
        _ command: [String], on stack: Stack, socket: String, runtime: RuntimeDirectory,
        environment: [String: String] = [:], asTestUser: Bool = true
    ) throws -> ChildProcess {
        let user = asTestUser ? try TestUser.ensure() : (getuid(), getgid())
        let variables = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let (program, arguments) = try Userland.command(
            [
                "/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=\(runtime.home)", "XDG_RUNTIME_DIR=\(runtime.xdg)",
                "WAYLAND_DISPLAY=\(socket)",
            ] + variables + command, on: stack, as: user, accounts: runtime.path)
        return try ChildProcess(program, arguments, directory: runtime.path)
    }

    /// The passwd and group of the userland at `root` with `user` added, written into `directory`.
    private static func writeAccounts(for user: (uid: uid_t, gid: gid_t), in directory: String, root: String) throws
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
