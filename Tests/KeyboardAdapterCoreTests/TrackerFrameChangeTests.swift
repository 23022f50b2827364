import Testing

@testable import KeyboardAdapterCore

@Suite("Tracker: frame changes and slides")
struct TrackerFrameChangeTests {
    /// A tracker with the floating keyboard shown and settled at time 1.
    func shownFloating() -> KeyboardTracker {
        var tracker = Fixture.tracker()
        _ = tracker.run([Fixture.observe(Fixture.floating, at: 0)], until: 1)
        return tracker
    }

    @Test("a move gives willChangeFrame at once and didChangeFrame when settled")
    func moveSettles() {
        var tracker = shownFloating()
        let moved = Fixture.floating.offsetBy(dx: 50, dy: 100)
        #expect(tracker.ingest(Fixture.observe(moved, at: 2)).steps == [Step(event: .willChangeFrame, end: moved)])
        #expect(tracker.advance(to: 2.04).isEmpty)
        let done = tracker.advance(to: 2.05)
        #expect(done.steps == [Step(event: .didChangeFrame, end: moved)])
        #expect(done.updates[0].beginFrame == Fixture.floating && done.updates[0].animationDuration == 0)
        #expect(done.updates[0].animationCurve == AnimationCurve.none)
    }

    @Test("a burst inside the settle window is one pair whose end frame is the final frame")
    func burstIsOnePair() {
        var tracker = shownFloating()
        var observations: [KeyboardObservation] = []
        for i in 1...10 {
            observations.append(Fixture.observe(Fixture.floating.offsetBy(dx: i * 10, dy: 0), at: 2 + Double(i) * 0.01))
        }
        let out = tracker.run(observations, until: 3)
        let final = Fixture.floating.offsetBy(dx: 100, dy: 0)
        #expect(
            out.steps == [
                Step(event: .willChangeFrame, end: Fixture.floating.offsetBy(dx: 10, dy: 0)),
                Step(event: .didChangeFrame, end: final),
            ])
        #expect(abs(out.updates[1].animationDuration - 0.09) < 1e-9)
        #expect(out.updates[1].animationCurve == .linear)
    }

    @Test("a storm of 20 000 frame changes in one transition: exact duration and curve from the thinned samples")
    func stormKeepsDurationAndCurve() {
        var tracker = shownFloating()
        var observations: [KeyboardObservation] = []
        for i in 1...20_000 {
            observations.append(
                Fixture.observe(
                    Fixture.floating.offsetBy(dx: i % 2 == 0 ? 0 : 1, dy: -i / 100), at: 2 + Double(i) * 0.0001))
        }
        let out = tracker.run(observations, until: 5)
        #expect(out.updates.map(\.event) == [.willChangeFrame, .didChangeFrame])
        #expect(abs(out.updates[1].animationDuration - 1.9999) < 1e-9)
        #expect(out.updates[1].endFrame == Fixture.floating.offsetBy(dx: 0, dy: -200))
    }

    @Test("a resize is a frame change too")
    func resize() {
        var tracker = shownFloating()
        let bigger = Rect(x: 100, y: 50, width: 900, height: 300)
        #expect(
            tracker.run([Fixture.observe(bigger, at: 2)], until: 3).steps
                == [Step(event: .willChangeFrame, end: bigger), Step(event: .didChangeFrame, end: bigger)])
    }

    @Test("a change then a hide inside the settle window: didChangeFrame before willHide")
    func changeThenHide() {
        var tracker = shownFloating()
        let moved = Fixture.floating.offsetBy(dx: 0, dy: 10)
        let out = tracker.run([Fixture.observe(moved, at: 2), Fixture.observe(nil, at: 2.01)], until: 3)
        #expect(out.steps.map(\.event) == [.willChangeFrame, .didChangeFrame, .willHide, .didHide])
        #expect(out.steps[1].end == moved)
    }

    @Test("a move to another output is a frame change that names the new output")
    func outputChange() {
        var tracker = Fixture.tracker()
        let right = Output(name: "RIGHT", frame: Rect(x: 1280, y: 0, width: 1920, height: 1080))
        let resized = Output(name: "RIGHT", frame: Rect(x: 1280, y: 0, width: 1920, height: 1200))
        let frame = Rect(x: 1280, y: 840, width: 1920, height: 240)
        _ = tracker.run([Fixture.observe(frame, at: 0, output: right)], until: 1)
        let out = tracker.run([Fixture.observe(frame, at: 2, output: resized)], until: 3)
        #expect(out.updates.map(\.event) == [.willChangeFrame, .didChangeFrame])
        #expect(out.updates.allSatisfy { $0.output == resized && !$0.isDocked })
    }

    /// Docked-bottom slide frames from on-screen y=595 to off-screen y=810 in 12 steps, 20 ms apart.
    static let slide: [Rect] = (0...12).map { Rect(x: 0, y: 595 + (810 - 595) * $0 / 12, width: 1280, height: 205) }

    @Test("a docked keyboard sliding out through its edge is one hide: willHide at the first step, didHide when gone")
    func slideOutIsHide() {
        var tracker = Fixture.tracker()
        _ = tracker.run([Fixture.observe(Self.slide[0], at: 0, docked: true)], until: 1)
        var observations = Self.slide.dropFirst().enumerated().map { i, frame in
            Fixture.observe(frame, at: 2 + Double(i) * 0.02, docked: true)
        }
        observations.append(Fixture.observe(nil, at: 2.3, docked: true))
        let out = tracker.run(observations, until: 4)
        #expect(out.steps.map(\.event) == [.willHide, .didHide])
        #expect(out.updates[0].beginFrame == Self.slide[0])
        // Both ends of the hide name the frame just past the edge, wherever the last step stopped.
        #expect(out.updates[0].endFrame == Rect(x: 0, y: 800, width: 1280, height: 205))
        #expect(out.updates[1].endFrame == out.updates[0].endFrame)
        #expect(out.updates.allSatisfy { $0.isEndFramePredicted })
        #expect(abs(out.updates[1].animationDuration - 0.22) < 1e-9)
        #expect(out.updates[1].animationCurve == .linear)
    }

    @Test("a slide-out interrupted by an unmap ends with didHide at the unmap")
    func slideOutThenUnmap() {
        var tracker = Fixture.tracker()
        _ = tracker.run([Fixture.observe(Self.slide[0], at: 0, docked: true)], until: 1)
        let out = tracker.run(
            [
                Fixture.observe(Self.slide[3], at: 2, docked: true),
                Fixture.observe(Self.slide[6], at: 2.02, docked: true),
                Fixture.observe(nil, at: 2.04),
            ], until: 4)
        #expect(out.steps.map(\.event) == [.willHide, .didHide])
        #expect(out.updates[1].endFrame == Rect(x: 0, y: 800, width: 1280, height: 205))
        #expect(abs(out.updates[1].animationDuration - 0.04) < 1e-9)
    }

    @Test("a keyboard first seen off screen and sliding in is one show beginning at the off-screen frame")
    func slideInIsOneShow() {
        var tracker = Fixture.tracker()
        let frames = Array(Self.slide.reversed())
        let observations = frames.enumerated().map { i, frame in
            Fixture.observe(frame, at: Double(i) * 0.02, docked: true)
        }
        let out = tracker.run(observations, until: 2)
        // Docked and reaching past its edge at its first step: its destination is known at once.
        #expect(out.steps == [Step(event: .willShow, end: Self.slide[0]), Step(event: .didShow, end: Self.slide[0])])
        #expect(out.updates[0].isEndFramePredicted && !out.updates[1].isEndFramePredicted)
        #expect(out.updates.allSatisfy { $0.beginFrame == Self.slide[12] })
        #expect(abs(out.updates[1].animationDuration - 0.24) < 1e-9)
        #expect(out.updates[1].animationCurve == .linear)
        #expect(out.updates[1].isDocked && out.updates[1].dockedEdge == .bottom)
    }

    @Test("a slide that stops part-way out ends the hide and shows what is left")
    func slideStopsPartWay() {
        var tracker = Fixture.tracker()
        _ = tracker.run([Fixture.observe(Self.slide[0], at: 0, docked: true)], until: 1)
        let out = tracker.run([Fixture.observe(Self.slide[2], at: 2, docked: true)], until: 3)
        #expect(
            out.steps == [
                Step(event: .willHide, end: Rect(x: 0, y: 800, width: 1280, height: 205)),
                Step(event: .didHide, end: Self.slide[2]),
                Step(event: .willShow, end: Self.slide[2]), Step(event: .didShow, end: Self.slide[2]),
            ])
    }

    @Test("a floating keyboard moving past the bottom edge is a frame change, not a hide")
    func floatingPastEdgeIsChange() {
        var tracker = shownFloating()
        let lower = Rect(x: 100, y: 700, width: 700, height: 205)
        #expect(
            tracker.run([Fixture.observe(lower, at: 2)], until: 3).steps.map(\.event)
                == [.willChangeFrame, .didChangeFrame])
    }

    @Test("curves are claimed only when measured", arguments: [AnimationCurve.easeOut, .easeIn, .easeInOut, .linear])
    func curves(expected: AnimationCurve) {
        func function(_ t: Double) -> Double {
            switch expected {
            case .easeOut: 1 - (1 - t) * (1 - t)
            case .easeIn: t * t
            case .easeInOut: t * t * (3 - 2 * t)
            default: t
            }
        }
        let samples = (0...10).map { i in
            CurveFit.Sample(
                time: Double(i) * 0.02,
                frame: Rect(x: 0, y: 800 - Int((240 * function(Double(i) / 10)).rounded()), width: 10, height: 10))
        }
        #expect(CurveFit.classify(samples) == expected)
        #expect(CurveFit.classify(Array(samples.prefix(3))) == .unknown)
        #expect(CurveFit.classify([samples[0]]) == AnimationCurve.none)
    }
}
