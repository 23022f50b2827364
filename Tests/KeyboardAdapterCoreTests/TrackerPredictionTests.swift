import Synchronization
import Testing

@testable import KeyboardAdapterCore
@testable import KeyboardReplay

/// What will events promise, and the frames in between: destinations, predicted timing, and the
/// exact progress sequences of a slide in, a slide out, a move and an interrupted slide.
@Suite("Tracker: predictions and progress")
struct TrackerPredictionTests {
    /// onboard's docked slide on 1280x800: 12 steps from the resting 0,595 to 0,810, below the screen.
    static let slide: [Rect] = (0...12).map { Rect(x: 0, y: 595 + (810 - 595) * $0 / 12, width: 1280, height: 205) }
    static let resting = slide[0]
    static let pastEdge = Rect(x: 0, y: 800, width: 1280, height: 205)

    /// A kind per emission: the event's name, or `progress`.
    static func kinds(_ emissions: [TrackerEmission]) -> [String] {
        emissions.compactMap { emission in
            switch emission {
            case .update(let update): update.event.rawValue
            case .progress: "progress"
            case .layoutChanged: nil
            }
        }
    }

    static func progress(_ emissions: [TrackerEmission]) -> [KeyboardProgress] {
        emissions.compactMap { if case .progress(let progress) = $0 { progress } else { nil } }
    }

    /// Observations of `frames` 20 ms apart from `start`, docked.
    static func steps(_ frames: some Sequence<Rect>, from start: Double) -> [KeyboardObservation] {
        frames.enumerated().map { Fixture.observe($1, at: start + Double($0) * 0.02, docked: true) }
    }

    @Test("slide in: willShow names the flush destination at the first step; progress frames to 1; didShow measured")
    func slideIn() {
        var tracker = Fixture.tracker()
        let out = tracker.run(Self.steps(Self.slide.reversed(), from: 0), until: 2)
        #expect(Self.kinds(out) == ["willShow"] + Array(repeating: "progress", count: 11) + ["didShow"])
        let will = out.updates[0]
        #expect(will.endFrame == Self.resting && will.isEndFramePredicted)
        #expect(will.timing == .unknown && will.animationDuration == 0 && will.animationCurve == .unknown)
        let fractions = Self.progress(out).compactMap(\.fraction)
        #expect(fractions.count == 11 && fractions == fractions.sorted() && fractions.last == 1)
        #expect(Self.progress(out).map(\.frame) == Array(Self.slide.reversed().dropFirst(2)))
        #expect(Self.progress(out).allSatisfy { $0.transition == .willShow && $0.isEndFramePredicted })
        let did = out.updates[1]
        #expect(did.endFrame == will.endFrame && did.timing == .measured && did.animationCurve == .linear)
    }

    @Test("slide out: willHide and didHide end just past the edge; progress frames in between")
    func slideOut() {
        var tracker = Fixture.tracker()
        _ = tracker.run([Fixture.observe(Self.resting, at: 0, docked: true)], until: 1)
        let out = tracker.run(Self.steps(Self.slide.dropFirst(), from: 2) + [Fixture.observe(nil, at: 2.3)], until: 3)
        #expect(Self.kinds(out) == ["willHide"] + Array(repeating: "progress", count: 10) + ["didHide"])
        #expect(out.updates.map(\.endFrame) == [Self.pastEdge, Self.pastEdge])
        let fractions = Self.progress(out).compactMap(\.fraction)
        #expect(fractions.count == 10 && fractions == fractions.sorted())
        #expect(out.updates[1].timing == .measured && out.updates[1].animationDuration > 0)
    }

    @Test("a move: progress frames without a fraction (where a move ends cannot be known)")
    func move() {
        var tracker = Fixture.tracker()
        _ = tracker.run([Fixture.observe(Fixture.floating, at: 0)], until: 1)
        let moves = (1...5).map {
            Fixture.observe(Fixture.floating.offsetBy(dx: $0 * 10, dy: 0), at: 2 + Double($0) * 0.01)
        }
        let out = tracker.run(moves, until: 3)
        #expect(
            Self.kinds(out) == ["willChangeFrame", "progress", "progress", "progress", "progress", "didChangeFrame"])
        #expect(Self.progress(out).allSatisfy { $0.fraction == nil && !$0.isEndFramePredicted })
        #expect(out.updates[0].timing == .unknown && out.updates[1].timing == .measured)
    }

    @Test("a slide in turned back half-way: didShow where it turned, then a whole hide")
    func interruptedSlide() {
        var tracker = Fixture.tracker()
        let inward = Array(Self.slide.reversed().prefix(7))  // 810 ... 702
        let outward = Array(Self.slide.reversed().prefix(6).reversed())  // 720 ... 810
        let out = tracker.run(Self.steps(inward + outward, from: 0) + [Fixture.observe(nil, at: 0.3)], until: 1)
        #expect(
            Self.kinds(out)
                == ["willShow"] + Array(repeating: "progress", count: 5) + ["didShow", "willHide"]
                + Array(repeating: "progress", count: 4) + ["didHide"])
        #expect(out.updates.map(\.event) == [.willShow, .didShow, .willHide, .didHide])
        #expect(out.updates[1].endFrame == inward.last)
        #expect(out.updates[2].beginFrame == inward.last && out.updates[2].endFrame == out.updates[3].endFrame)
    }

    @Test("the next slide of the same keyboard (by name, in a new window) is predicted from the last one measured")
    func predictedTiming() {
        var tracker = Fixture.tracker()
        let first = tracker.run(Self.steps(Self.slide.reversed(), from: 0), until: 1)
        let measuredShow = first.updates[1]
        let hide = tracker.run(
            Self.steps(Self.slide.dropFirst(), from: 2) + [Fixture.observe(nil, at: 2.3)], until: 3)
        #expect(hide.updates[0].timing == .unknown, "the first hide of a keyboard has no prediction")
        // onboard recreates its window: a new id, the same name.
        let renamed = KeyboardIdentity(id: "test:9", name: Fixture.osk.name)
        let again = tracker.run(
            Self.steps(Self.slide.reversed(), from: 4).map { observation in
                var observation = observation
                observation.keyboard = renamed
                return observation
            }, until: 5)
        let will = again.updates[0]
        #expect(will.timing == .predicted)
        #expect(will.animationDuration == measuredShow.animationDuration)
        #expect(will.animationCurve == measuredShow.animationCurve)
        #expect(again.updates[1].timing == .measured)
    }

    @Test("a keyboard that appears at once: its frame, observed, and no prediction from an instant show")
    func instantShow() {
        var tracker = Fixture.tracker()
        let out = tracker.run([Fixture.observe(Self.resting, at: 0, docked: true)], until: 1)
        #expect(out.updates[0].endFrame == Self.resting && !out.updates[0].isEndFramePredicted)
        let again = tracker.run(
            [Fixture.observe(nil, at: 2), Fixture.observe(Self.resting, at: 3, docked: true)], until: 4)
        #expect(again.updates.first { $0.event == .willShow }?.timing == .unknown)
    }
}

@Suite("Replay: predictions and progress")
struct ReplayPredictionTests {
    /// Two slides each way of a docked keyboard, as a recording.
    static func recording() -> String {
        let slide = TrackerPredictionTests.slide
        var observations: [KeyboardObservation] = []
        var time = 0.0
        for _ in 0..<2 {
            for frame in slide.reversed() {
                observations.append(Fixture.observe(frame, at: time, docked: true))
                time += 0.02
            }
            time += 0.3
            for frame in slide.dropFirst() {
                observations.append(Fixture.observe(frame, at: time, docked: true))
                time += 0.02
            }
            observations.append(Fixture.observe(nil, at: time))
            time += 0.3
        }
        return observations.map { ObservationCodec.encode($0, relativeTo: 0) }.joined(separator: "\n")
    }

    /// What a manager hands out for the recording played at `speed`: each update and progress
    /// frame as a line of its values (wall-clock timestamps left out).
    static func play(_ speed: ReplayBackend.Speed) throws -> [String] {
        let manager = KeyboardManager(backend: ReplayBackend(source: .text(recording()), speed: speed))
        let lines = Mutex<[String]>([])
        let ended = Mutex(false)
        let tokens = [
            manager.onEvent(delivery: .immediate) { u in
                lines.withLock {
                    $0.append(
                        "\(u.event) \(u.beginFrame) \(u.endFrame) \(u.isEndFramePredicted) \(u.animationDuration) \(u.animationCurve) \(u.timing)"
                    )
                }
            },
            manager.onProgress(delivery: .immediate) { p in
                lines.withLock { $0.append("progress \(p.frame) \(p.fraction ?? -1) \(p.elapsed)") }
            },
            manager.onStop(delivery: .immediate) { _ in ended.withLock { $0 = true } },
        ]
        try manager.start()
        try Wait.until("the replay's end") { ended.withLock { $0 } }
        withExtendedLifetime(tokens) {}
        return lines.withLock { $0 }
    }

    @Test("a replay reproduces the predictions and the progress frames exactly, as fast as possible and at ×4")
    func sameAtAnySpeed() throws {
        let fast = try Self.play(.asFastAsPossible)
        let timed = try Self.play(.factor(4))
        #expect(fast.filter { $0.hasPrefix("progress") }.count == 2 * (11 + 10))
        #expect(fast.contains { $0.hasPrefix("willShow") && $0.hasSuffix("predicted") })
        #expect(fast == timed)
    }
}
