import Glibc
import KeyboardAdapterCore

/// Who a client of the service is, as the bus and the kernel prove it: its user and process
/// (`GetConnectionCredentials`) and, when it runs in a Flatpak sandbox, that sandbox's app id
/// (`/proc/PID/root/.flatpak-info`, as xdg-desktop-portal reads it). A sandboxed app reaches the
/// bus through xdg-dbus-proxy, so its process is the proxy's; the proxy runs in the app's
/// sandbox, so the app id read through it is the app's.
struct SessionCaller: Sendable, Hashable {
    var uid: UInt32
    var pid: Int32
    /// The app id of the caller's sandbox; nil outside a sandbox.
    var sandboxAppID: String?

    /// The client a share of the service's places is counted against: a sandboxed app, however
    /// many connections and processes it has, or one process outside any sandbox.
    var share: String { sandboxAppID.map { "app " + $0 } ?? "pid \(pid)" }

    /// The caller's identity from a `GetConnectionCredentials` reply's values; nil when the bus
    /// does not tell both the user and the process.
    init?(credentials: [String: Int64]) {
        guard let uid = credentials["UnixUserID"], let uid = UInt32(exactly: uid),
            let pid = credentials["ProcessID"], let pid = Int32(exactly: pid), pid > 0
        else { return nil }
        self.uid = uid
        self.pid = pid
        sandboxAppID = Sandbox.appID(ofProcess: pid)
    }

    /// The ids a subscription names that count for this caller. Outside a sandbox a caller is
    /// trusted as the kernel and the portals trust it: the processes of its own user (which it
    /// could trace and read anyway), any window, any app id. A sandboxed caller is judged by its
    /// sandbox alone: the ids it names go.
    func own(_ options: SubscribeOptions) -> (processIDs: [Int32], windowIDs: [UInt64], appIDs: [String]) {
        guard sandboxAppID == nil else { return ([], [], []) }
        return (options.processIDs.filter { Sandbox.owner(ofProcess: $0) == uid }, options.windowIDs, options.appIDs)
    }
}

/// What the kernel says of a process's sandbox.
enum Sandbox {
    /// The app id a Flatpak sandbox names in its `/.flatpak-info` (`[Application]`, `name=`), read
    /// through the process's root; nil when the process runs in none (or is gone).
    static func appID(ofProcess pid: Int32) -> String? {
        guard let text = readBounded("/proc/\(pid)/root/.flatpak-info", limit: 64 * 1024) else { return nil }
        var section = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("[") {
                section = String(trimmed)
            } else if section == "[Application]", trimmed.hasPrefix("name=") {
                let name = trimmed.dropFirst("name=".count)
                guard !name.isEmpty, name.utf8.count <= AppIdentity.maximumAppIDBytes else { return nil }
                return String(name)
            }
        }
        return nil
    }

    /// The user owning a process; nil when there is none.
    static func owner(ofProcess pid: Int32) -> UInt32? {
        guard pid > 0 else { return nil }
        var info = stat()
        guard stat("/proc/\(pid)", &info) == 0 else { return nil }
        return info.st_uid
    }

    /// A file's text, nil when it cannot be read or holds more than `limit` bytes.
    private static func readBounded(_ path: String, limit: Int) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count <= limit {
            let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + count, limit + 1 - count) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { break }
            count += got
        }
        guard count <= limit else { return nil }
        return String(decoding: bytes[..<count], as: UTF8.self)
    }
}
