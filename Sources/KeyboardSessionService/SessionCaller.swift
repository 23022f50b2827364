import Glibc
import KeyboardAdapterCore
import SystemdBus

/// Who a client of the service is, as the bus and the kernel prove it: its user and process
/// (`GetConnectionCredentials`) and what that process's sandbox is (see ``SandboxIdentity``). A
/// sandboxed app reaches the bus through xdg-dbus-proxy, so its process is the proxy's; the
/// proxy runs in the app's sandbox, so the sandbox read through it is the app's.
struct SessionCaller: Sendable, Hashable {
    var uid: UInt32
    var pid: Int32
    /// The caller's sandbox, as far as it could be established.
    var sandbox: SandboxIdentity

    /// The app id of the caller's Flatpak sandbox; nil outside one, and when it is not known.
    var sandboxAppID: String? {
        if case .flatpak(let appID) = sandbox { return appID }
        return nil
    }

    /// The client a share of the service's places is counted against: a Flatpak app, however
    /// many connections and processes it has; one process outside any sandbox; and every caller
    /// whose sandbox is not known (another sandbox, or one that could not be established)
    /// together, in one bounded share.
    var share: String {
        switch sandbox {
        case .none: "pid \(pid)"
        case .flatpak(let appID): "app " + appID
        case .other, .unknown: "any caller of unknown sandbox"
        }
    }

    /// The caller's identity from a `GetConnectionCredentials` reply, its sandbox read at once;
    /// nil when the bus does not tell both the user and the process. Where the bus handed the
    /// process that made the connection over (`ProcessFD`), that process is the one read, and
    /// one that has ended is unknown (its pid 0 when the bus no longer gives one). Else `heard` is a time at which the connection was known
    /// to exist (the service had a call of it): the process that made the connection started
    /// before it, so a process with its pid that started later is another one (see
    /// ``Sandbox/identity(ofProcess:startedBefore:pinned:)``).
    init?(credentials: BusCredentials, heard: BootTime) {
        guard let uid = credentials.uid else { return nil }
        if let failure = credentials.processFailure {
            let reason =
                "the bus's ProcessFD holds no process of its pid (\(failure)): the process that made its connection ended"
            self.init(uid: uid, pid: credentials.pid ?? 0, sandbox: .unknown(reason))
            return
        }
        guard let pid = credentials.pid else { return nil }
        self.init(
            uid: uid, pid: pid,
            sandbox: Sandbox.identity(ofProcess: pid, startedBefore: heard, pinned: credentials.process))
    }

    init(uid: UInt32, pid: Int32, sandbox: SandboxIdentity) {
        self.uid = uid
        self.pid = pid
        self.sandbox = sandbox
    }

    /// The ids a subscription names that count for this caller. Outside a sandbox a caller is
    /// trusted as the kernel and the portals trust it: the processes of its own user (which it
    /// could trace and read anyway), any window, any app id. Any other caller is judged by its
    /// sandbox alone: the ids it names go.
    func own(_ options: SubscribeOptions) -> (processIDs: [Int32], windowIDs: [UInt64], appIDs: [String]) {
        guard sandbox == .none else { return ([], [], []) }
        return (options.processIDs.filter { Sandbox.owner(ofProcess: $0) == uid }, options.windowIDs, options.appIDs)
    }
}

/// What the service knows of a process's sandbox. Only ``none`` and ``flatpak(appID:)`` are
/// trusted with anything; the rest fail closed.
enum SandboxIdentity: Sendable, Hashable {
    /// The process runs outside any sandbox: its root and mount namespace are the service's.
    case none
    /// A Flatpak sandbox, its app id read from its `/.flatpak-info`.
    case flatpak(appID: String)
    /// Another sandbox (Snap's confinement, bubblewrap without a Flatpak file, another mount
    /// namespace): sandboxed, its app unknown.
    case other(String)
    /// The sandbox could not be established for certain (the process gone, a file unreadable,
    /// odd or too large, no descriptor left): why.
    case unknown(String)
}

/// What the kernel says of a process's sandbox.
enum Sandbox {
    /// The most bytes of a `/.flatpak-info` read; a larger one is not believed.
    static let maximumInfoBytes = 64 * 1024

    /// The sandbox of process `pid`, read as xdg-desktop-portal reads an app's and failing
    /// closed as it does. The process is pinned first (a pidfd) and must still run once
    /// everything is read, so that all of it is that process's, not a later one's with its pid.
    /// Its root is opened through `/proc/PID/root`, and `.flatpak-info` in it by that one name
    /// without following a link (none can lead out of the root), non-blocking (a FIFO cannot
    /// hold the service), a regular file only, at most ``maximumInfoBytes``. Without one, the
    /// process is sandboxed all the same when Snap confines it (its cgroup) or its mount
    /// namespace is not the service's (bubblewrap).
    ///
    /// With `startedBefore`, the pid is the one the bus gave for a connection, and the process
    /// pinned must have started no later than that time (its start time, field 22 of
    /// `/proc/PID/stat`, in the kernel's clock ticks since boot): one that started later did not
    /// make the connection, its pid was reused after the connecting process ended. Such a
    /// process's sandbox is unknown, whatever it is. `pinned`, when given, is the process already
    /// pinned (by the bus's `ProcessFD`), read in place of the one that has `pid` now.
    static func identity(
        ofProcess pid: Int32, startedBefore heard: BootTime? = nil, pinned: PinnedProcess? = nil
    ) -> SandboxIdentity {
        let process: PinnedProcess
        do throws(BusFailure) {
            if let pinned { process = pinned } else { process = try PinnedProcess(pid) }
        } catch {
            return .unknown("its process cannot be pinned (\(error))")
        }
        if let heard {
            switch startTime(ofProcess: pid) {
            case .failure(let reason): return .unknown(reason.description)
            case .success(let ticks) where ticks > heard.ticks:
                return .unknown(
                    "the process with its pid started after the service first heard of its connection "
                        + "(tick \(ticks) > \(heard.ticks)): the pid was reused")
            case .success: break
            }
        }
        let root = open("/proc/\(pid)/root", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard root >= 0 else { return .unknown("its root cannot be opened (\(errorText()))") }
        defer { close(root) }
        let found = identity(inRoot: root, pid: pid)
        guard !process.hasEnded else { return .unknown("its process ended while it was read") }
        return found
    }

    private static func identity(inRoot root: Int32, pid: Int32) -> SandboxIdentity {
        let info = openat(root, ".flatpak-info", O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC)
        if info >= 0 {
            defer { close(info) }
            switch readRegular(info, limit: maximumInfoBytes) {
            case .failure(let reason): return .unknown("its /.flatpak-info " + reason.description)
            case .success(let text):
                guard let appID = appID(inFlatpakInfo: text) else {
                    return .unknown("its /.flatpak-info names no valid app")
                }
                return .flatpak(appID: appID)
            }
        }
        guard errno == ENOENT else { return .unknown("its /.flatpak-info cannot be opened (\(errorText()))") }
        // No Flatpak file: another sandbox, or none.
        switch snapConfinement(ofProcess: pid) {
        case .failure(let reason): return .unknown(reason.description)
        case .success(let snap?): return .other("Snap's confinement (\(snap))")
        case .success(nil): break
        }
        var theirs = stat()
        var ours = stat()
        guard stat("/proc/\(pid)/ns/mnt", &theirs) == 0, stat("/proc/self/ns/mnt", &ours) == 0 else {
            return .unknown("its mount namespace cannot be read (\(errorText()))")
        }
        guard theirs.st_ino == ours.st_ino, theirs.st_dev == ours.st_dev else {
            return .other("another mount namespace")
        }
        var theirRoot = stat()
        var ourRoot = stat()
        guard fstat(root, &theirRoot) == 0, stat("/", &ourRoot) == 0 else {
            return .unknown("its root cannot be read (\(errorText()))")
        }
        guard theirRoot.st_ino == ourRoot.st_ino, theirRoot.st_dev == ourRoot.st_dev else {
            return .other("another root")
        }
        return .none
    }

    /// The app id a Flatpak file names (`[Application]`, `name=`); nil when it names none, or
    /// one too long.
    static func appID(inFlatpakInfo text: String) -> String? {
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

    /// The snap confining process `pid` (its cgroup's `snap.NAME.APP` unit), nil for none.
    private static func snapConfinement(ofProcess pid: Int32) -> Result<String?, Refusal> {
        let descriptor = open("/proc/\(pid)/cgroup", O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(Refusal("its cgroup cannot be opened (\(errorText()))")) }
        defer { close(descriptor) }
        let text: String
        switch readRegular(descriptor, limit: 64 * 1024, sizeKnown: false) {
        case .failure(let reason): return .failure(Refusal("its cgroup " + reason.description))
        case .success(let read): text = read
        }
        for line in text.split(separator: "\n") {
            for unit in line.split(separator: "/") where unit.hasPrefix("snap.") {
                return .success(String(unit.prefix(AppIdentity.maximumAppIDBytes)))
            }
        }
        return .success(nil)
    }

    /// When process `pid` started, in clock ticks since boot (`/proc/PID/stat`'s field 22).
    static func startTime(ofProcess pid: Int32) -> Result<UInt64, Refusal> {
        let descriptor = open("/proc/\(pid)/stat", O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(Refusal("its stat cannot be opened (\(errorText()))")) }
        defer { close(descriptor) }
        switch readRegular(descriptor, limit: 4096, sizeKnown: false) {
        case .failure(let reason): return .failure(Refusal("its stat " + reason.description))
        case .success(let text):
            guard let start = startTime(inStat: text) else { return .failure(Refusal("its stat names no start time")) }
            return .success(start)
        }
    }

    /// The start time (field 22) of a `/proc/PID/stat` line; the command's name, field 2, may
    /// hold spaces and parentheses, so the fields are counted from its last `)`.
    static func startTime(inStat text: String) -> UInt64? {
        guard let close = text.utf8.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (the state).
        guard fields.count > 19 else { return nil }
        return UInt64(fields[19])
    }

    /// Why something could not be read.
    struct Refusal: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The text of the open file `descriptor`, which must be a regular file of at most `limit`
    /// bytes (`/proc`'s files say they are empty: `sizeKnown` false reads them up to `limit`).
    private static func readRegular(_ descriptor: Int32, limit: Int, sizeKnown: Bool = true) -> Result<
        String, Refusal
    > {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .failure(Refusal("cannot be read (\(errorText()))")) }
        guard info.st_mode & S_IFMT == S_IFREG else { return .failure(Refusal("is not a regular file")) }
        guard !sizeKnown || info.st_size <= limit else { return .failure(Refusal("is larger than \(limit) bytes")) }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count <= limit {
            let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + count, limit + 1 - count) }
            if got < 0 && errno == EINTR { continue }
            if got < 0 { return .failure(Refusal("cannot be read (\(errorText()))")) }
            guard got > 0 else { break }
            count += got
        }
        guard count <= limit else { return .failure(Refusal("is larger than \(limit) bytes")) }
        return .success(String(decoding: bytes[..<count], as: UTF8.self))
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }

    /// The user owning a process; nil when there is none.
    static func owner(ofProcess pid: Int32) -> UInt32? {
        guard pid > 0 else { return nil }
        var info = stat()
        guard stat("/proc/\(pid)", &info) == 0 else { return nil }
        return info.st_uid
    }
}

/// A time on the kernel's boot clock (`CLOCK_BOOTTIME`, which `/proc/PID/stat`'s start times
/// count), in the clock ticks those start times are given in, rounded down.
struct BootTime: Sendable, Hashable {
    /// Clock ticks (`sysconf(_SC_CLK_TCK)`) since boot.
    var ticks: UInt64

    /// Now.
    static func now() -> BootTime {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        let perSecond = UInt64(max(sysconf(Int32(_SC_CLK_TCK)), 1))
        let nanoseconds = UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
        return BootTime(ticks: nanoseconds / (1_000_000_000 / perSecond))
    }
}
