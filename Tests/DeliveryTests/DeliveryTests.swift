import Foundation
import TestSupport
import Testing

/// The delivery modes in real processes: an app that never drains its main queue, one that runs
/// dispatchMain(), and the mistake of main-actor closures without a running main queue.
@Suite("Delivery in real processes")
struct DeliveryTests {
    /// Runs the kbdelivery example in `mode` and returns its output and status.
    func run(_ mode: String) throws -> (status: Int32, stdout: String, stderr: String) {
        let path = Kbwatch.path.replacingOccurrences(of: "/kbwatch", with: "/kbdelivery")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = [mode]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try Programs.start(process)
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try? out.fileHandleForReading.close()
        try? err.fileHandleForReading.close()
        return (process.terminationStatus, stdout, stderr)
    }

    @Test("an app whose main thread polls the descriptor gets every update on its main thread")
    func descriptor() throws {
        let result = try run("descriptor")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.split(separator: "\n") == [
                "willShow on the main thread", "didShow on the main thread", "willHide on the main thread",
                "didHide on the main thread", "ended on the main thread",
            ])
    }

    @Test("an app that runs dispatchMain() gets every update on the main actor")
    func mainActor() throws {
        let result = try run("main-actor")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.split(separator: "\n") == [
                "willShow on the main queue, main actor", "didShow on the main queue, main actor",
                "willHide on the main queue, main actor", "didHide on the main queue, main actor",
                "ended on the main queue, main actor",
            ])
    }

    @Test(
        "main-actor closures in an app that never runs the main queue: nothing delivered, and a warning that says why")
    func undrained() throws {
        let result = try run("undrained")
        #expect(result.status == 0)
        #expect(result.stdout == "the main thread slept; nothing was delivered\n")
        #expect(
            result.stderr.contains("KeyboardAdapter: main-actor callbacks have waited")
                && result.stderr.contains("delivery .descriptor"), "\(result.stderr)")
    }

    @Test("one show and then silence, in an app that never runs the main queue: the warning comes when its delay is up")
    func undrainedOnce() throws {
        let started = Date()
        let result = try run("undrained-once")
        #expect(result.status == 0)
        #expect(result.stdout == "the main thread slept; nothing was delivered\n")
        #expect(
            result.stderr == "KeyboardAdapter: main-actor callbacks have waited 0.5 s: the main thread does not run "
                + "the main queue (dispatchMain(), a RunLoop or an async main); an app with its own loop should "
                + "subscribe with delivery .descriptor and watch KeyboardManager.pollDescriptor\n",
            "\(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 10)
    }
}
