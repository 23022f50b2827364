import Foundation
import Synchronization

// Swift Testing is there in debug builds (the tests'); a release build of the benchmarks, with
// the Swift runtime linked statically, has no static Testing library and skips by printing.
#if canImport(Testing)
    import Testing
#endif

/// A program a test started: ended by its pid when the test is done, also when it fails.
public final class ChildProcess: @unchecked Sendable {
    /// The program's path or name.
    public let executable: String
    /// Its process id: the program's own, also when it runs in the Debian 13 userland, where the
    /// process started is bubblewrap and the program its child (signals go to the program; when it
    /// ends, bubblewrap ends with it).
    public let pid: Int32
    /// Where its stdout and stderr go.
    public let logPath: String
    private let process: Process

    /// Starts `executable` (a path, or a name looked up in PATH) with `arguments`; stdout and stderr
    /// go to a log file in `directory`. The environment is the test process's, changed by `environment`
    /// (a nil value removes a variable).
    public init(
        _ executable: String, _ arguments: [String] = [], environment: [String: String?] = [:],
        directory: String = NSTemporaryDirectory(), stdinNull: Bool = true
    ) throws {
        guard let path = Programs.find(executable) else { throw TestFailure("program not found: \(executable)") }
        self.executable = executable
        let process = Programs.process(path, arguments, environment: environment)
        let name = (executable as NSString).lastPathComponent
        logPath = (directory as NSString).appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8)).log")
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = log
        process.standardError = log
        if stdinNull { process.standardInput = FileHandle.nullDevice }
        try Programs.start(process)
        // The child has its own copy; Foundation keeps the Process, and with it this handle,
        // for as long as the test process lives (see `Programs.run`).
        try? log.close()
        self.process = process
        let launcher = process.processIdentifier
        pid = Self.isSandboxed(executable, arguments) ? Self.sandboxedProgram(of: launcher) : launcher
    }

    /// Whether the command runs bubblewrap (directly, or through `setpriv ... --`).
    private static func isSandboxed(_ executable: String, _ arguments: [String]) -> Bool {
        if (executable as NSString).lastPathComponent == "bwrap" { return true }
        guard (executable as NSString).lastPathComponent == "setpriv", let end = arguments.firstIndex(of: "--"),
            end + 1 < arguments.count
        else { return false }
        return (arguments[end + 1] as NSString).lastPathComponent == "bwrap"
    }

    /// bubblewrap's child, the program, once it is there (a few milliseconds); bubblewrap's own pid
    /// when it never comes (bubblewrap failed: its exit is then what the test sees).
    private static func sandboxedProgram(of launcher: Int32) -> Int32 {
        var child: Int32?
        _ = Wait.until(timeout: 5) {
            let list =
                (try? String(contentsOfFile: "/proc/\(launcher)/task/\(launcher)/children", encoding: .utf8)) ?? ""
            child = list.split(separator: " ").first.flatMap { Int32($0) }
            return child != nil || kill(launcher, 0) != 0
        }
        return child ?? launcher
    }

    /// True while the process has not exited.
    public var isRunning: Bool { !hasExited }

    /// The exit status, once it has exited.
    public var exitStatus: Int32? { process.isRunning ? nil : process.terminationStatus }

    /// Sends a signal.
    public func signal(_ signal: Int32) { kill(pid, signal) }

    /// Ends the process: SIGTERM, then SIGKILL after `grace` seconds. Every wait is bounded.
    public func stop(grace: Double = 2) {
        guard !hasExited else { return }
        kill(pid, SIGTERM)
        if !Wait.until(timeout: grace, { self.hasExited }) {
            kill(pid, SIGKILL)
            _ = Wait.until(timeout: 5) { self.hasExited }
        }
    }

    /// True once the process has ended. Foundation notices an exit when a pipe shared with the
    /// child closes, and a child's own children (swaybar under sway) keep it open: a process
    /// that is a zombie, or gone, has ended whatever Foundation thinks.
    public var hasExited: Bool {
        guard process.isRunning else { return true }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        return stat.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).hasPrefix("Z") ?? true
    }

    /// Waits for the process to exit by itself; returns its status, or nil on timeout.
    @discardableResult
    public func waitForExit(timeout: Double) -> Int32? {
        Wait.until(timeout: timeout, { !self.process.isRunning }) ? process.terminationStatus : nil
    }

    /// What the process has written so far.
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    deinit { stop(grace: 0.5) }

    /// Ends the process and then, by pid, what it started that is still running (a compositor's
    /// panel, a bus's services), which would otherwise outlive the test.
    public func stopWithDescendants(grace: Double = 2) {
        let started = Self.descendants(of: pid)
        stop(grace: grace)
        // They may block SIGTERM (a compositor's children inherit its signal mask) and would
        // keep Foundation's exit pipe open: SIGKILL.
        for leftover in started where kill(leftover, 0) == 0 { kill(leftover, SIGKILL) }
    }

    /// The processes below `root`, from /proc (children before grandchildren).
    public static func descendants(of root: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var parents: [Int32: Int32] = [:]
        for entry in entries {
            guard let pid = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let fields = stat.split(separator: ")").last?.split(separator: " "),
                fields.count > 1, let parent = Int32(fields[1])
            else { continue }
            parents[pid] = parent
        }
        var found: [Int32] = []
        var frontier = [root]
        while let next = frontier.first {
            frontier.removeFirst()
            let children = parents.filter { $0.value == next }.map(\.key).sorted()
            found += children
            frontier += children
        }
        return found
    }

}

/// A test failure with a message that says what went wrong.
public struct TestFailure: Error, CustomStringConvertible {
    /// The message.
    public var description: String
    /// Creates a failure.
    public init(_ description: String) { self.description = description }
}

/// Deadlines for waiting: every wait says what it waited for when it gives up.
public enum Wait {
    /// Polls `condition` every few milliseconds until it holds or `timeout` seconds pass; true if it held.
    @discardableResult
    public static func until(timeout: Double, interval: Double = 0.005, _ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if condition() { return true }
            Thread.sleep(forTimeInterval: interval)
        }
        return condition()
    }

    /// Like `until`, but throws a failure naming `what` on timeout.
    public static func require(_ what: String, timeout: Double, _ condition: () -> Bool) throws {
        if !until(timeout: timeout, condition) { throw TestFailure("timed out after \(timeout) s waiting for \(what)") }
    }
}

/// Finding programs, and the rule for missing ones: skip outside CI, fail under CI.
public enum Programs {
    /// The full path of a program, or nil.
    public static func find(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        // Strings, not Substrings: `[Substring] + [literal]` picks an overload that turns each
        // directory into an array of characters, and then no program is ever found.
        let dirs: [String] = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/libexec"]
        for dir in dirs {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// True under CI (`CI=true`), where a missing program is a failure, never a skip.
    public static var underCI: Bool {
        ProcessInfo.processInfo.environment["CI"].map { $0 == "true" || $0 == "1" } ?? false
    }

    /// The programs among `names` that are missing. Under CI a missing program is a failure, so
    /// this throws; elsewhere the caller skips with the returned names in its reason.
    public static func missing(_ names: [String]) throws -> [String] {
        let missing = names.filter { find($0) == nil }
        if !missing.isEmpty && underCI {
            throw TestFailure("missing programs under CI: \(missing.joined(separator: ", "))")
        }
        return missing
    }

    /// Whether every program in `names` is there. Outside CI a missing one skips the running test
    /// (see `skip(_:)`, which names them) and, outside a test, returns false. Under CI it throws.
    public static func ready(_ names: [String]) throws -> Bool {
        let missing = try missing(names)
        if !missing.isEmpty { try skip("missing \(missing.joined(separator: ", "))") }
        return missing.isEmpty
    }

    /// Skips the running test (or test case) with `reason`, cancelling it, and first prints
    /// `➜ Skipped "NAME": REASON`, which `scripts/test` counts: Swift Testing reports a cancelled
    /// test, but a cancelled case of a parameterized test only as the test passing. Outside a test
    /// (a benchmark) it prints the reason and returns. Under CI, where everything must run, a skip
    /// is a failure: it throws.
    public static func skip(_ reason: String) throws {
        if underCI { throw TestFailure("\(reason) (under CI nothing may be skipped)") }
        #if canImport(Testing)
            if let test = Test.current {
                let line = "➜ Skipped \"\(test.displayName ?? test.name)\": \(reason)\n"
                // One write, so that lines of tests running side by side never interleave.
                _ = line.utf8CString.withUnsafeBufferPointer { write(1, $0.baseAddress, $0.count - 1) }
                try Test.cancel(Comment(rawValue: reason))
            }
        #endif
        print("skipped: \(reason)")
    }

    /// True when the test process runs as root. Some set-ups need it (Xorg with a configuration
    /// of the test's own); compositors run as the current user otherwise (see `TestUser`).
    public static var isRoot: Bool { getuid() == 0 }

    /// The processes whose environment has `XDG_RUNTIME_DIR=directory`: everything a test's
    /// compositor started, even what outlived it and was handed to init.
    public static func processes(withRuntimeDirectory directory: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        let wanted = Array("XDG_RUNTIME_DIR=\(directory)".utf8)
        return entries.compactMap { entry -> Int32? in
            guard let pid = Int32(entry), pid != getpid(),
                let environment = FileManager.default.contents(atPath: "/proc/\(entry)/environ")
            else { return nil }
            return environment.split(separator: 0).contains { Array($0) == wanted } ? pid : nil
        }
    }

    /// Runs a program to completion and returns its exit status and standard output.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String?] = [:],
        timeout: Double = 20
    ) throws -> (status: Int32, output: String) {
        guard let path = find(executable) else { throw TestFailure("program not found: \(executable)") }
        let process = Programs.process(path, arguments, environment: environment)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try Programs.start(process)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        // Foundation never releases a Process it started, nor the pipe that Process holds: closed
        // here, or every run would keep a descriptor open until the test process ends.
        try? pipe.fileHandleForReading.close()
        if !Wait.until(timeout: timeout, { !process.isRunning }) {
            kill(process.processIdentifier, SIGKILL)
            throw TestFailure("\(executable) \(arguments.joined(separator: " ")) did not finish in \(timeout) s")
        }
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

extension Programs {
    /// A process for the program at `path`, with the test process's environment changed by
    /// `environment` (a nil value removes a variable). Start it with `Programs.start(_:)`.
    public static func process(_ path: String, _ arguments: [String], environment: [String: String?]) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        return process
    }

    /// Starts `process` with no signal blocked (see `withDefaultSignalMask`), one at a time.
    ///
    /// Foundation's `Process.run()` reads `/proc/self/fd` and copies each entry's name as a whole
    /// 256-byte field: once some 1 350 descriptors are open, glibc's 32 KiB buffer for the listing
    /// is full, and the copy of its last entries can run past it into an unmapped page (the test
    /// process died so, in a memcpy inside `Process.run()`). So the test process must not gather
    /// descriptors: the helpers here close every handle they gave a Process (Foundation keeps each
    /// Process it started, and those handles with it, until the test process ends). Tests that
    /// start hundreds of run loops at once (two descriptors each) can hold many for a moment: a
    /// start waits for them to be closed, and fails naming what is open if they are not.
    public static func start(_ process: Process) throws {
        if openDescriptors() > descriptorLimit {
            _ = Wait.until(timeout: 10, interval: 0.05) { openDescriptors() <= descriptorLimit }
        }
        let open = openDescriptors()
        guard open <= descriptorLimit else {
            // What they are ("pipe", "socket", "anon_inode", a file's directory), most first.
            var kinds: [String: Int] = [:]
            for descriptor in 0..<8192 where fcntl(Int32(descriptor), F_GETFD) >= 0 {
                let target =
                    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")) ?? "?"
                let kind = target.hasPrefix("/") ? (target as NSString).deletingLastPathComponent : target
                kinds[kind.split(separator: ":[").first.map(String.init) ?? kind, default: 0] += 1
            }
            let summary = kinds.sorted { $0.value > $1.value }.prefix(6).map { "\($0.value) \($0.key)" }
            throw TestFailure(
                "the test process holds \(open) descriptors (\(summary.joined(separator: ", "))): something leaks them")
        }
        try startLock.withLock { _ in try withDefaultSignalMask { try process.run() } }
    }

    /// How many descriptors the test process has open: the entries of `/proc/self/fd`, counted
    /// without reading their names (so without the copy that crashes `Process.run()`), less `.`,
    /// `..` and the listing's own.
    private static func openDescriptors() -> Int {
        guard let listing = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(listing) }
        var entries = 0
        while readdir(listing) != nil { entries += 1 }
        return entries - 3
    }

    /// The descriptors the test process may hold when it starts a program: well below where
    /// `Process.run()` could crash, well above what the tests keep open (a few hundred when the
    /// most run at once).
    static let descriptorLimit = 1024

    private static let startLock = Mutex(())
}

/// Runs `body` (which starts a program) with no signal blocked on the calling thread. A child
/// inherits its parent thread's signal mask, and the test runner's threads block SIGTERM among
/// others: without this, programs a test starts ignore SIGTERM and are only ended by SIGKILL.
func withDefaultSignalMask<T>(_ body: () throws -> T) rethrows -> T {
    var empty = sigset_t()
    var saved = sigset_t()
    sigemptyset(&empty)
    pthread_sigmask(SIG_SETMASK, &empty, &saved)
    defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
    return try body()
}
