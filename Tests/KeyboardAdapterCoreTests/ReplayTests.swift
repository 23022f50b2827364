import Foundation
import KeyboardAdapterTesting
@_spi(BackendRun) import KeyboardBackendInterface
import Testing

@testable import KeyboardAdapterCore
@testable import KeyboardReplay

/// Runs a manager on a replay and collects everything it hands out, on a private queue.
final class ReplayRun: @unchecked Sendable {
    let queue = DispatchQueue(label: "test.replay")
    private(set) var updates: [KeyboardUpdate] = []
    private(set) var failure: BackendFailure??
    let manager: KeyboardManager
    private var tokens: [KeyboardSubscription] = []

    init(_ text: String, speed: ReplayBackend.Speed = .asFastAsPossible, settle: Double = 0.05) {
        manager = KeyboardManager(
            backend: ReplayBackend(source: .text(text), speed: speed),
            configuration: .init(settleInterval: settle))
        tokens.append(manager.onEvent(delivery: .queue(queue)) { [unowned self] in self.updates.append($0) })
        tokens.append(manager.onStop(delivery: .queue(queue)) { [unowned self] in self.failure = .some($0) })
    }

    /// Plays to the end; throws if it does not end in time.
    func play(timeout: Double = 10) throws {
        try manager.start()
        let end = Date().addingTimeInterval(timeout)
        while queue.sync(execute: { failure == nil }) {
            guard Date() < end else { throw ReplayTestError.timeout }
            Thread.sleep(forTimeInterval: 0.002)
        }
    }

    var steps: [Step] { queue.sync { updates.map { Step(event: $0.event, end: $0.endFrame, id: $0.keyboard.id) } } }
}

enum ReplayTestError: Error { case timeout }

/// A recording of a show, a move, a slide-out and a second keyboard, written through the codec.
func sampleRecording() -> String {
    let screen = Fixture.screen
    var lines: [KeyboardObservation] = []
    lines.append(Fixture.observe(Fixture.floating, at: 10.0, output: screen))
    lines.append(Fixture.observe(Fixture.floating.offsetBy(dx: 30, dy: 0), at: 10.5))
    lines.append(Fixture.observe(Fixture.floating.offsetBy(dx: 60, dy: 0), at: 10.52))
    lines.append(Fixture.observe(nil, at: 11.0))
    lines.append(
        Fixture.observe(
            Rect(x: 300, y: 400, width: 200, height: 120), at: 11.1, keyboard: Fixture.panel,
            layout: InputLayout(name: "English (US)", code: "us")))
    lines.append(Fixture.observe(nil, at: 11.3, keyboard: Fixture.panel))
    return lines.map { ObservationCodec.encode($0, relativeTo: 10.0) }.joined(separator: "\n") + "\n"
}

@Suite("Replay")
struct ReplayTests {
    @Test("a line encodes and decodes to the same observation, times relative to the first")
    func roundTrip() throws {
        let observation = KeyboardObservation(
            time: 12.5, keyboard: KeyboardIdentity(id: "x11:0x1", name: "xvkbd", pid: 42),
            frame: Fixture.docked, isDocked: true, dockedEdge: .bottom, output: Fixture.screen,
            geometry: .reported, isLocal: false, layout: InputLayout(name: "German", code: "de"))
        let line = ObservationCodec.encode(observation, relativeTo: 10)
        #expect(line.hasPrefix(#"{"t":2.5,"keyboard":{"#))
        var expected = observation
        expected.time = 2.5
        #expect(try ObservationCodec.decode(line[...], lineNumber: 1, previousTime: nil) == expected)
    }

    @Test("the keyboard's own window is written only where it differs from the frame, and read back")
    func windowRoundTrip() throws {
        var observation = KeyboardObservation(
            time: 1, keyboard: KeyboardIdentity(id: "x11:0x1", name: "xvkbd"), frame: Fixture.floating,
            output: Fixture.screen)
        #expect(!ObservationCodec.encode(observation, relativeTo: 1).contains(#""window""#))
        observation.windowFrame = Rect(x: 101, y: 70, width: 698, height: 184)
        let line = ObservationCodec.encode(observation, relativeTo: 1)
        #expect(line.hasSuffix(#","window":{"x":101,"y":70,"width":698,"height":184}}"#))
        var expected = observation
        expected.time = 0
        #expect(try ObservationCodec.decode(line[...], lineNumber: 1, previousTime: nil) == expected)
        // A window without a frame says nothing: the keyboard is not shown.
        let hidden =
            #"{"t":0,"keyboard":{"id":"k","name":"n","kind":"keyboard"},"frame":null,"geometry":"reported","window":{"x":1,"y":2,"width":3,"height":4}}"#
        #expect(try ObservationCodec.decode(hidden[...], lineNumber: 1, previousTime: nil).windowFrame == nil)
        let negative =
            #"{"t":0,"keyboard":{"id":"k","name":"n","kind":"keyboard"},"frame":null,"geometry":"reported","window":{"x":1,"y":2,"width":-3,"height":4}}"#
        #expect(throws: ObservationCodec.LineError.self) {
            try ObservationCodec.decode(negative[...], lineNumber: 1, previousTime: nil)
        }
    }

    @Test("a hidden keyboard is a null frame; optional fields may be left out")
    func minimalLine() throws {
        let text = #"{"t":0,"keyboard":{"id":"k","name":"n","kind":"keyboard"},"frame":null,"geometry":"unknown"}"#
        let observation = try ObservationCodec.decode(text[...], lineNumber: 3, previousTime: nil)
        #expect(observation.frame == nil && observation.output == nil && observation.keyboard.pid == nil)
    }

    @Test(
        "malformed lines are rejected with the reason",
        arguments: [
            ("not json at all", "not valid JSON"),
            ("[1,2,3]", "not a JSON object"),
            (#"{"t":0,"frame":null,"geometry":"derived"}"#, "missing field 'keyboard'"),
            (
                #"{"t":0,"keyboard":{"id":"k","name":"n","kind":"keyboard"},"geometry":"derived"}"#,
                "missing field 'frame'"
            ),
            (
                #"{"t":2,"keyboard":{"id":"k","name":"n","kind":"keyboard"},"frame":{"x":0,"y":0,"width":-5,"height":3},"geometry":"derived"}"#,
                "negative size in frame (-5x3)"
            ),
            (
                #"{"t":0.5,"keyboard":{"id":"k","name":"n","kind":"keyboard"},"frame":null,"geometry":"derived"}"#,
                "time goes backwards (0.5 after 1.0)"
            ),
            (
                #"{"t":"soon","keyboard":{"id":"k","name":"n","kind":"keyboard"},"frame":null,"geometry":"derived"}"#,
                "field 't' has the wrong type"
            ),
            (
                #"{"t":2,"keyboard":{"id":"k","name":"n","kind":"keyboard"},"frame":{"x":0,"y":9223372036854775800,"width":1,"height":1},"geometry":"derived"}"#,
                "coordinates out of range in frame"
            ),
            (
                #"{"t":2,"keyboard":{"id":"k","name":"n","kind":"robot"},"frame":null,"geometry":"derived"}"#,
                #"field 'keyboard.kind' has an unknown value "robot""#
            ),
        ])
    func malformed(line: String, reason: String) {
        #expect(throws: ObservationCodec.LineError(line: 9, reason: reason)) {
            try ObservationCodec.decode(line[...], lineNumber: 9, previousTime: 1.0)
        }
    }

    @Test("a replay yields the events of the recorded run")
    func replayEvents() throws {
        let run = ReplayRun(sampleRecording())
        try run.play()
        let panelOff = Rect(x: 300, y: 800, width: 200, height: 120)
        let last = Fixture.floating.offsetBy(dx: 60, dy: 0)
        let lastOff = Rect(x: last.x, y: 800, width: last.width, height: last.height)
        #expect(
            run.steps == [
                Step(event: .willShow, end: Fixture.floating), Step(event: .didShow, end: Fixture.floating),
                Step(event: .willChangeFrame, end: Fixture.floating.offsetBy(dx: 30, dy: 0)),
                Step(event: .didChangeFrame, end: last),
                Step(event: .willHide, end: lastOff), Step(event: .didHide, end: lastOff),
                Step(event: .willShow, end: Rect(x: 300, y: 400, width: 200, height: 120), id: Fixture.panel.id),
                Step(event: .didShow, end: Rect(x: 300, y: 400, width: 200, height: 120), id: Fixture.panel.id),
                Step(event: .willHide, end: panelOff, id: Fixture.panel.id),
                Step(event: .didHide, end: panelOff, id: Fixture.panel.id),
            ])
        #expect(run.queue.sync { run.updates.allSatisfy { $0.backend == "replay" } })
        #expect(run.queue.sync { run.failure } == .some(nil))
    }

    @Test("the same events at any speed: real time ×8 and as fast as possible")
    func speedIndependence() throws {
        let fast = ReplayRun(sampleRecording())
        try fast.play()
        let timed = ReplayRun(sampleRecording(), speed: .factor(8))
        let started = Date()
        try timed.play()
        #expect(Date().timeIntervalSince(started) >= 1.3 / 8 - 0.01)
        #expect(fast.steps == timed.steps)
        #expect(
            fast.queue.sync { fast.updates.map(\.animationDuration) }
                == timed.queue.sync { timed.updates.map(\.animationDuration) })
    }

    @Test("a bad line 7 delivers lines 1 to 6 and reports line 7 with the reason")
    func badLineSeven() throws {
        var lines = sampleRecording().split(separator: "\n").map(String.init)
        #expect(lines.count == 6)
        lines.append(
            #"{"t":3,"keyboard":{"id":"x","name":"y","kind":"keyboard"},"frame":{"x":0,"y":0,"width":10,"height":-1},"geometry":"reported"}"#
        )
        lines.append(ObservationCodec.encode(Fixture.observe(Fixture.docked, at: 5), relativeTo: 0))
        let run = ReplayRun(lines.joined(separator: "\n"))
        try run.play()
        let full = ReplayRun(sampleRecording())
        try full.play()
        #expect(run.steps == full.steps)
        let failure = run.queue.sync { run.failure }
        #expect(
            failure
                == .some(
                    BackendFailure(
                        backend: "replay", kind: .malformedInput,
                        reason: "line 7: negative size in frame (10x-1)")))
    }

    @Test("a file that cannot be read is reported unavailable and start throws")
    func unreadableFile() {
        let backend = ReplayBackend(source: .file("/nonexistent/recording.jsonl"))
        #expect(!backend.availability().isAvailable)
        #expect(throws: BackendFailure.self) {
            try KeyboardRunLoop().performAndWait { context in
                _ = try backend.open(in: context, sink: NullSink(), app: AppIdentity())
            }
        }
    }

    @Test(
        "blank lines are skipped; a line of raw bytes (invalid UTF-8, escapes) is rejected with its number, not a crash"
    )
    func blankAndBinaryLines() throws {
        let path = NSTemporaryDirectory() + "replay-\(UUID().uuidString).jsonl"
        var data = Data((sampleRecording().split(separator: "\n").prefix(2).joined(separator: "\n\n") + "\n").utf8)
        data.append(contentsOf: [0xFF, 0xFE, 0x1B, 0x5B, 0x32, 0x4A, 0x0A])
        try data.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let manager = KeyboardManager(
            backend: ReplayBackend(source: .file(path), speed: .asFastAsPossible))
        let stopped = DispatchSemaphore(value: 0)
        let box = FailureBox()
        let token = manager.onStop(delivery: .immediate) {
            box.set($0)
            stopped.signal()
        }
        try manager.start()
        #expect(stopped.wait(timeout: .now() + 5) == .success)
        #expect(box.get()?.reason == "line 4: not valid JSON")
        _ = token
    }

    @Test("a recording of a live run replays to the same events")
    func recordThenReplay() throws {
        let path = NSTemporaryDirectory() + "record-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let live = InMemoryBackend()
        let queue = DispatchQueue(label: "test.record")
        let manager = KeyboardManager(
            backend: live, configuration: .init(settleInterval: 0.02, recorder: try ObservationRecorder(path: path)))
        let seen = UpdateBox()
        let token = manager.onEvent(delivery: .queue(queue)) { seen.append($0) }
        try manager.start()
        live.observe(Fixture.osk, frame: Fixture.docked, output: Fixture.screen)
        Thread.sleep(forTimeInterval: 0.1)
        live.observe(Fixture.osk, frame: nil)
        Thread.sleep(forTimeInterval: 0.1)
        queue.sync {}
        manager.stop()
        let replayed = ReplayRun(try String(contentsOfFile: path, encoding: .utf8), settle: 0.02)
        try replayed.play()
        #expect(seen.steps.map(\.event) == [.willShow, .didShow, .willHide, .didHide])
        #expect(replayed.steps == seen.steps)
        _ = token
    }
}

struct NullSink: ObservationSink {
    func deliver(_ observation: KeyboardObservation) {}
    func finish(failure: BackendFailure?) {}
}

final class FailureBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: BackendFailure?
    func set(_ failure: BackendFailure?) { lock.withLock { value = failure } }
    func get() -> BackendFailure? { lock.withLock { value } }
}

final class UpdateBox: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [KeyboardUpdate] = []
    func append(_ update: KeyboardUpdate) { lock.withLock { values.append(update) } }
    var all: [KeyboardUpdate] { lock.withLock { values } }
    var steps: [Step] { all.map { Step(event: $0.event, end: $0.endFrame, id: $0.keyboard.id) } }
}
