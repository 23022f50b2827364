import Foundation
import Synchronization

/// The unprivileged user that runs compositors in tests (sway refuses to run as root). Tests run
/// as root in CI: then it is an account of its own, created with `useradd` when missing. Run by an
/// ordinary user, on a contributor's desktop, it is that user, and nothing needs root.
public enum TestUser {
    /// The account's name when the tests run as root.
    public static let name = "kbadapter-test"

    private static let lock = Mutex<(uid: uid_t, gid: gid_t)?>(nil)

    /// The user's uid and gid: the current user's when not root; as root, the test account's,
    /// created first when it does not exist.
    public static func ensure() throws -> (uid: uid_t, gid: gid_t) {
        guard getuid() == 0 else { return (getuid(), getgid()) }
        return try lock.withLock { known in
            if let known { return known }
            if lookup() == nil {
                guard getuid() == 0 else {
                    throw TestFailure("user \(name) is missing and only root can create it (useradd)")
                }
                let result = try Programs.run(
                    "useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name])
                // Another test process may have created it meanwhile: only the lookup decides.
                if lookup() == nil { throw TestFailure("useradd \(name) failed with status \(result.status)") }
            }
            known = lookup()
            return known!
        }
    }

    /// The program and arguments that run `command` as `user`: through `setpriv` when the tests
    /// run as root (it execs the command in place, so the pid is the command's own), as they are
    /// when the user is the current one.
    public static func command(_ command: [String], as user: (uid: uid_t, gid: gid_t)) -> (String, [String]) {
        if user.uid == getuid() { return (command[0], Array(command.dropFirst())) }
        return ("setpriv", ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "--"] + command)
    }

    private static func lookup() -> (uid: uid_t, gid: gid_t)? {
        guard let entry = getpwnam(name) else { return nil }
        return (entry.pointee.pw_uid, entry.pointee.pw_gid)
    }
}

/// A scratch directory for one compositor: `xdg` (its XDG_RUNTIME_DIR, mode 0700) and `home`,
/// both owned by the test user, plus room for configs and logs. Removed when released.
public final class RuntimeDirectory: @unchecked Sendable {
    /// The top directory.
    public let path: String
    /// The runtime directory (`XDG_RUNTIME_DIR`).
    public let xdg: String
    /// A writable home (font caches, dconf).
    public let home: String

    /// Creates the directories for `owner`.
    public init(owner: (uid: uid_t, gid: gid_t), prefix: String = "kbadapter-wl") throws {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw TestFailure("mkdtemp failed: \(String(cString: strerror(errno)))")
        }
        path = String(cString: made)
        xdg = path + "/xdg"
        home = path + "/home"
        // The user must be able to reach its directories through ours.
        chmod(path, 0o755)
        for (dir, mode) in [(xdg, mode_t(0o700)), (home, mode_t(0o755))] {
            guard mkdir(dir, mode) == 0, chown(dir, owner.uid, owner.gid) == 0 else {
                throw TestFailure("cannot prepare \(dir): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Writes `text` to `name` inside the top directory and returns its path.
    public func write(_ name: String, _ text: String) throws -> String {
        let file = path + "/" + name
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o644)
        return file
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
