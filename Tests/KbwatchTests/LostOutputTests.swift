import Foundation
import KeyboardAdapterCore
import KeyboardReplay
import TestSupport
import Testing

/// Nothing is lost in silence: a write of standard output or of the recording that fails ends
/// kbwatch with the reason and exit 9; a closed pipe stays the quiet end `| head` expects.
@Suite("kbwatch: output that cannot be written")
struct LostOutputTests {
    /// Runs `script` with /bin/sh (kbwatch's path in `$KBWATCH`) and waits for it.
    func shell(_ script: String, environment: [String: String?] = [:]) throws -> Kbwatch.Result {
        let process = Programs.process(
            "/bin/sh", ["-c", script], environment: environment.merging(["KBWATCH": Kbwatch.path]) { $1 })
        let err = Pipe()
        let out = Pipe()
        process.standardError = err
        process.standardOutput = out
        process.standardInput = FileHandle.nullDevice
        try Programs.start(process)
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try? err.fileHandleForReading.close()
        try? out.fileHandleForReading.close()
        return Kbwatch.Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self), stdoutData: stdout)
    }

    @Test("standard output on a full device: exit 9 with the reason")
    func stdoutFull() throws {
        let path = Recordings.write(Recordings.showMoveHide)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try shell("exec \"$KBWATCH\" --replay \(path) --speed max --json > /dev/full")
        #expect(result.status == 9)
        #expect(result.stderr == "kbwatch: cannot write standard output: No space left on device\n")
    }

    @Test("standard output closed: exit 9 with the reason, at once")
    func stdoutClosed() throws {
        let path = Recordings.write(Recordings.moving(seconds: 600))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let started = Date()
        let result = try shell("exec \"$KBWATCH\" --replay \(path) --speed 1 --json >&-")
        #expect(result.status == 9)
        #expect(result.stderr == "kbwatch: cannot write standard output: Bad file descriptor\n")
        #expect(Date().timeIntervalSince(started) < 5)
    }

    @Test("a pipe closed early is still the quiet, successful end")
    func closedPipe() throws {
        let path = Recordings.write(Recordings.moving(seconds: 600))
        defer { try? FileManager.default.removeItem(atPath: path) }
        // kbwatch's own status goes to standard error; the pipeline's is head's.
        let result = try shell(
            "{ \"$KBWATCH\" --replay \(path) --speed max --json; echo $? >&2; } | head -1 > /dev/null")
        #expect(result.stderr == "0\n")
    }

    @Test("a recording on a full device: exit 9 naming the file, from the first line")
    func recordingFull() throws {
        let path = Recordings.write(Recordings.showMoveHide)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try Kbwatch.run(["--replay", path, "--speed", "max", "--json", "--record", "/dev/full"])
        #expect(result.status == 9)
        #expect(result.stderr == "kbwatch: cannot write the recording /dev/full: No space left on device\n")
    }

    @Test("a recording on a full device while watching a live X server: exit 9")
    func recordingFullLive() throws {
        guard try Programs.ready(["Xvfb", "xvkbd"]) else { return }
        let session = try X11Session()
        defer { session.stop() }
        let result = try Kbwatch.run(["--backend", "x11", "--record", "/dev/full"], environment: session.environment) {
            _, _ in _ = try? session.start("xvkbd")
        }
        #expect(result.status == 9)
        #expect(result.stderr == "kbwatch: cannot write the recording /dev/full: No space left on device\n")
    }

    @Test("a recording on a filesystem that fills up: exit 9 naming the file")
    func recordingFillsUp() throws {
        guard getuid() == 0 else {
            if ProcessInfo.processInfo.environment["CI"] == "true" { Issue.record("needs root to mount a tmpfs") }
            return
        }
        let mount = NSTemporaryDirectory() + "kbwatch-small-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: mount) }
        let mounted = try shell("mount -t tmpfs -o size=16k kbwatch-test \(mount)")
        try #require(mounted.status == 0, "\(mounted.stderr)")
        defer { _ = try? shell("umount \(mount)") }
        let path = Recordings.write(Recordings.moving(seconds: 30))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try Kbwatch.run(["--replay", path, "--speed", "max", "--json", "--record", mount + "/r.jsonl"])
        #expect(result.status == 9)
        #expect(result.stderr == "kbwatch: cannot write the recording \(mount)/r.jsonl: No space left on device\n")
        // What fitted was written whole, line by line, and replays.
        let written = try String(contentsOfFile: mount + "/r.jsonl", encoding: .utf8)
        #expect(!written.isEmpty && written.hasSuffix("\n"))
        let replayed = try Kbwatch.run(["--replay", mount + "/r.jsonl", "--speed", "max", "--json"])
        #expect(replayed.status == 0, "\(replayed.stderr)")
    }

    @Test("a recording removed while it is written: exit 9, not a recording lost without a word")
    func recordingRemoved() throws {
        let path = Recordings.write(Recordings.moving(seconds: 20))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recording = NSTemporaryDirectory() + "kbwatch-removed-\(UUID().uuidString).jsonl"
        let result = try Kbwatch.run(["--replay", path, "--speed", "1", "--json", "--record", recording]) { _, _ in
            _ = Wait.until(timeout: 5) {
                ((try? FileManager.default.attributesOfItem(atPath: recording)[.size] as? Int) ?? 0) > 0
            }
            try? FileManager.default.removeItem(atPath: recording)
        }
        #expect(result.status == 9)
        #expect(
            result.stderr == "kbwatch: cannot write the recording \(recording): the file was removed while recording\n")
    }

    @Test("a recording that shows more keyboards at once than the limit fails at that line; what came before stands")
    func tooManyKeyboards() throws {
        let limit = ReplayBackend.maximumVisibleKeyboards
        let observations = (0...limit).map { index in
            KeyboardObservation(
                time: Double(index) * 0.001, keyboard: KeyboardIdentity(id: "test:\(index)", name: "osk"),
                frame: Rect(x: index % 1000, y: 560, width: 100, height: 240), output: Recordings.screen)
        }
        let path = Recordings.write(observations)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try Kbwatch.run(["--replay", path, "--speed", "max", "--json"])
        #expect(result.status == 5)
        #expect(
            result.stderr == "kbwatch: replay: line \(limit + 1): more than \(limit) keyboards visible at once\n")
        let shows = result.lines.filter { $0.contains("\"event\":\"willShow\"") }
        #expect(shows.count == limit)
    }
}
