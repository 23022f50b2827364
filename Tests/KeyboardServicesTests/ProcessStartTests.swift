import Foundation
import Testing

@testable import KeyboardSessionService

/// How the session service dates a process (its start, `/proc/PID/stat`'s field 22) against the
/// boot clock it dates connections by.
@Suite("a process's start time")
struct ProcessStartTests {
    @Test("field 22 is counted from the command's last ')': a name with spaces and parentheses does not shift it")
    func parsed() {
        let fields = (3...52).map { $0 == 22 ? "987654" : String($0) }.joined(separator: " ")
        #expect(Sandbox.startTime(inStat: "42 (plain) " + fields) == 987654)
        #expect(Sandbox.startTime(inStat: "42 (a) 1 2 (b)) " + fields) == 987654)
        #expect(Sandbox.startTime(inStat: "42 (x y) " + fields + "\n") == 987654)
        #expect(Sandbox.startTime(inStat: "42 (short) S 1 2") == nil)
        #expect(Sandbox.startTime(inStat: "no parenthesis") == nil)
    }

    @Test("a process started now is dated no later than now on the boot clock, and one started before it earlier")
    func againstTheBootClock() throws {
        let own = try #require(try? Sandbox.startTime(ofProcess: getpid()).get())
        let now = BootTime.now()
        #expect(own <= now.ticks)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["5"]
        Thread.sleep(forTimeInterval: 0.05)
        try child.run()
        defer { child.terminate() }
        let started = try #require(try? Sandbox.startTime(ofProcess: child.processIdentifier).get())
        #expect(started > now.ticks, "a process started after the date: \(started) vs \(now.ticks)")
        #expect(started <= BootTime.now().ticks)
    }
}
