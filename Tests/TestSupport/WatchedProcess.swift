import Foundation
import Glibc

/// A program that keeps running in the background (kbwatch watching, or a C client that prints
/// what it sees), its stdout read line by line on a dedicated thread (see ``StampedLines``) and
/// its stderr in a log. Ended by its pid when stopped or released.
public final class WatchedProcess: @unchecked Sendable {
    /// The process id, for /proc figures.
    public let pid: Int32
    /// Its standard output, stamped as read.
    public let lines: StampedLines
    /// Where its standard error goes.
    public let errorLogPath: String
    private let process: Process

    /// Starts `program` (a path, or a name looked up in PATH) with `arguments` and the
    /// environment changed by `environment` (nil removes a variable).
    public init(_ program: String, _ arguments: [String], environment: [String: String?] = [:]) throws {
        guard let path = Programs.find(program) else { throw TestFailure("program not found: \(program)") }
        process = Programs.process(path, arguments, environment: environment)
        let output = Pipe()
        let name = (program as NSString).lastPathComponent
        errorLogPath = NSTemporaryDirectory() + "\(name)-\(UUID().uuidString.prefix(8)).log"
        _ = FileManager.default.createFile(atPath: errorLogPath, contents: nil)
        process.standardOutput = output
        let errorLog = try FileHandle(forWritingTo: URL(fileURLWithPath: errorLogPath))
        process.standardError = errorLog
        process.standardInput = FileHandle.nullDevice
        try Programs.start(process)
        pid = process.processIdentifier
        // Only the child may hold the write end, so that its exit ends the reading thread, which
        // reads a copy of the read end; Foundation keeps the Process, and with it every handle
        // given to it, for as long as the test process lives (see `Programs.run`).
        try? output.fileHandleForWriting.close()
        try? errorLog.close()
        lines = StampedLines(descriptor: output.fileHandleForReading.fileDescriptor)
        try? output.fileHandleForReading.close()
    }

    /// What the program wrote to standard error.
    public var errors: String { (try? String(contentsOfFile: errorLogPath, encoding: .utf8)) ?? "" }

    /// True while the process runs.
    public var isRunning: Bool { process.isRunning }

    /// The exit status once it has exited (waits a moment for it after its output ended).
    public var exitStatus: Int32? {
        _ = Wait.until(timeout: 2) { !process.isRunning }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// Ends the program (SIGTERM, then SIGKILL after `grace` seconds) and waits for its output to end.
    public func stop(grace: Double = 2) {
        guard process.isRunning else { return }
        kill(pid, SIGTERM)
        if !Wait.until(timeout: grace, { !process.isRunning }) { kill(pid, SIGKILL) }
        process.waitUntilExit()
        _ = lines.waitForEnd(timeout: 2)
    }

    deinit {
        stop(grace: 0.5)
        try? FileManager.default.removeItem(atPath: errorLogPath)
    }
}
