import Foundation

/// Runs the built `kbwatch` binary, as a user would.
public enum Kbwatch {
    /// The binary next to the test bundle (SwiftPM builds both into the same directory).
    public static var path: String {
        let exe =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent("kbwatch").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return "kbwatch"
    }

    /// What one run printed, and how it ended.
    public struct Result: Sendable {
        /// The exit status.
        public var status: Int32
        /// Standard output.
        public var stdout: String
        /// Standard error.
        public var stderr: String
        /// Standard output's raw bytes.
        public var stdoutData: Data
        /// Standard output split into lines (without the trailing empty one).
        public var lines: [String] {
            stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
    }

    /// Runs kbwatch with `arguments` and the environment changed by `environment` (nil removes a
    /// variable), and waits for it to exit.
    public static func run(
        _ arguments: [String], environment: [String: String?] = [:], timeout: Double = 30,
        whileRunning: ((_ pid: Int32, _ stdoutSoFar: () -> String) -> Void)? = nil
    ) throws -> Result {
        let process = Programs.process(path, arguments, environment: environment)
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let collected = Collected()
        // Each handler reads until end of file (an empty read), then says so: the output is whole
        // only once both have, not merely once the process has exited (a handler may still be
        // holding the last bytes it read).
        out.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                collected.finish()
            } else {
                collected.append(out: data)
            }
        }
        err.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                collected.finish()
            } else {
                collected.append(err: data)
            }
        }
        try Programs.start(process)
        // Only the child may hold the write ends, so that its exit ends both streams.
        try? out.fileHandleForWriting.close()
        try? err.fileHandleForWriting.close()
        whileRunning?(process.processIdentifier) { String(decoding: collected.values.0, as: UTF8.self) }
        guard Wait.until(timeout: timeout, { !process.isRunning }) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw TestFailure("kbwatch \(arguments.joined(separator: " ")) did not exit within \(timeout) s")
        }
        process.waitUntilExit()
        // Both streams end with the process (nothing else holds their write ends).
        if !Wait.until(timeout: 5, { collected.finished == 2 }) {
            throw TestFailure("kbwatch \(arguments.joined(separator: " ")): its output did not end with it")
        }
        let (stdout, stderr) = collected.values
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self), stdoutData: stdout)
    }

    /// Starts kbwatch in the background, its stdout stamped line by line as read (see ``WatchedProcess``).
    public static func watch(_ arguments: [String], environment: [String: String?] = [:]) throws -> WatchedProcess {
        try WatchedProcess(path, arguments, environment: environment)
    }

    /// Starts kbwatch in the background; its output accumulates in a log (see `ChildProcess`).
    public static func start(_ arguments: [String], environment: [String: String?] = [:]) throws -> ChildProcess {
        try ChildProcess(path, arguments, environment: environment)
    }
}

private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var out = Data(), err = Data()
    func append(out data: Data) { lock.withLock { out.append(data) } }
    func append(err data: Data) { lock.withLock { err.append(data) } }
    private var ended = 0
    var values: (Data, Data) { lock.withLock { (out, err) } }
    func finish() { lock.withLock { ended += 1 } }
    var finished: Int { lock.withLock { ended } }
}
