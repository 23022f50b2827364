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

        /// A result, for runs made another way (through a shell).
        public init(status: Int32, stdout: String, stderr: String, stdoutData: Data) {
            self.status = status
            self.stdout = stdout
            self.stderr = stderr
            self.stdoutData = stdoutData
        }
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
        // A handler says it is reading before it reads: once the handlers are gone, the last
        // bytes one of them read are waited for, not lost.
        out.fileHandleForReading.readabilityHandler = { handle in
            collected.reading { collected.append(out: handle.availableData) }
        }
        err.fileHandleForReading.readabilityHandler = { handle in
            collected.reading { collected.append(err: handle.availableData) }
        }
        // However this ends: no handler left, none still reading, and both pipes closed, since
        // Foundation keeps the Process, and with it the pipes, open otherwise (see `Programs.run`).
        defer {
            out.fileHandleForReading.readabilityHandler = nil
            err.fileHandleForReading.readabilityHandler = nil
            _ = Wait.until(timeout: 5) { collected.readers == 0 }
            try? out.fileHandleForReading.close()
            try? err.fileHandleForReading.close()
        }
        try Programs.start(process)
        whileRunning?(process.processIdentifier) { String(decoding: collected.values.0, as: UTF8.self) }
        guard Wait.until(timeout: timeout, { !process.isRunning }) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw TestFailure("kbwatch \(arguments.joined(separator: " ")) did not exit within \(timeout) s")
        }
        process.waitUntilExit()
        out.fileHandleForReading.readabilityHandler = nil
        err.fileHandleForReading.readabilityHandler = nil
        collected.append(out: out.fileHandleForReading.readDataToEndOfFile())
        collected.append(err: err.fileHandleForReading.readDataToEndOfFile())
        _ = Wait.until(timeout: 5) { collected.readers == 0 }
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
    private var busy = 0
    var values: (Data, Data) { lock.withLock { (out, err) } }
    /// Handlers in the middle of a read.
    var readers: Int { lock.withLock { busy } }
    func reading(_ body: () -> Void) {
        lock.withLock { busy += 1 }
        body()
        lock.withLock { busy -= 1 }
    }
}
