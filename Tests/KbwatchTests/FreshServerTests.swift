import Foundation
import TestSupport
import Testing

/// kbwatch against X servers as they are right after they start, and with a hostile rules file.
@Suite("kbwatch on a fresh X server", .serialized)
struct FreshServerTests {
    @Test("--state as the first client of a freshly started Xvfb succeeds, 20 times out of 20")
    func firstClient() throws {
        guard try Programs.ready(["Xvfb"]) else { return }
        for attempt in 1...20 {
            // No -noreset and no connection before kbwatch's: the server resets when kbwatch's
            // availability check disconnects, just as kbwatch connects again to watch.
            let session = try X11Session(fresh: true)
            defer { session.stop() }
            let result = try Kbwatch.run(["--state"], environment: session.environment)
            #expect(result.status == 1, "attempt \(attempt): exit \(result.status): \(result.stderr)")
        }
    }

    @Test("an unreachable X server is exit 3, as documented")
    func unreachable() throws {
        let result = try Kbwatch.run(
            ["--state", "--backend", "x11"], environment: ["DISPLAY": ":4093", "WAYLAND_DISPLAY": nil])
        #expect(result.status == 3, "\(result.stderr)")
    }

    @Test("a rules file of 513 brackets is reported by --doctor and ignored by --state and --list-backends")
    func hostileRulesFile() throws {
        guard try Programs.ready(["Xvfb"]) else { return }
        let session = try X11Session()
        defer { session.stop() }
        let directory = session.directory + "/config/keyboard-adapter"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try String(repeating: "[", count: 513).write(
            toFile: directory + "/rules.json", atomically: true, encoding: .utf8)
        let doctor = try Kbwatch.run(["--doctor"], environment: session.environment)
        #expect(doctor.status == 0, "\(doctor.stderr)")
        #expect(doctor.stdout.contains("nested deeper than"), "\(doctor.stdout)")
        let state = try Kbwatch.run(["--state"], environment: session.environment)
        #expect(state.status == 1, "\(state.stderr)")
        let list = try Kbwatch.run(["--list-backends"], environment: session.environment)
        #expect(list.status == 0 && list.stdout.contains("x11: available"), "\(list.stdout)")
    }

    @Test("a FIFO in the rules path hangs nothing: --state, --doctor, --list-backends and watching go on, with a note")
    func fifoRulesFile() throws {
        guard try Programs.ready(["Xvfb", "xvkbd"]) else { return }
        let session = try X11Session()
        defer { session.stop() }
        let directory = session.directory + "/config/keyboard-adapter"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(mkfifo(directory + "/rules.json", 0o600) == 0)
        let doctor = try Kbwatch.run(["--doctor"], environment: session.environment, timeout: 10)
        #expect(doctor.status == 0, "\(doctor.stderr)")
        #expect(doctor.stdout.contains("rules.json: a FIFO, not a regular file; ignored"), "\(doctor.stdout)")
        let state = try Kbwatch.run(["--state"], environment: session.environment, timeout: 10)
        #expect(state.status == 1, "\(state.stderr)")
        let list = try Kbwatch.run(["--list-backends"], environment: session.environment, timeout: 10)
        #expect(list.status == 0 && list.stdout.contains("x11: available"), "\(list.stdout)")
        let watching = try Kbwatch.start(["--json"], environment: session.environment)
        defer { watching.stop() }
        let keyboard = try session.start("xvkbd")
        defer { keyboard.stop() }
        try Wait.require("kbwatch to report xvkbd", timeout: 15) { watching.log.contains("\"didShow\"") }
    }
}
