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
        // However this ends: both pipes' ends in this process closed (Foundation keeps the
        // Process, and with it the pipes, open otherwise; see `Programs.run`).
        defer {
            try? out.fileHandleForReading.close()
            try? err.fileHandleForReading.close()
            try? out.fileHandleForWriting.close()
            try? err.fileHandleForWriting.close()
        }
        try Programs.start(process)
        // Only the child holds the write ends now: its exit ends the reads.
        try? out.fileHandleForWriting.close()
        try? err.fileHandleForWriting.close()
        let stdoutDrain = PipeDrain(out.fileHandleForReading)
        let stderrDrain = PipeDrain(err.fileHandleForReading)
        whileRunning?(process.processIdentifier) { String(decoding: stdoutDrain.data, as: UTF8.self) }
        guard Wait.until(timeout: timeout, { !process.isRunning }) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw TestFailure("kbwatch \(arguments.joined(separator: " ")) did not exit within \(timeout) s")
        }
        process.waitUntilExit()
        let stdout = stdoutDrain.waitForEnd(timeout: 5)
        let stderr = stderrDrain.waitForEnd(timeout: 5)
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
