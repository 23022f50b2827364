import Testing

@testable import KeyboardAdapterCore
@testable import KeyboardReplay

/// Slides whose end the display server names (GNOME Shell's keyboard): the will event at the very
/// start, towards the named frame, every step a progress frame, and no did before it arrives.
@Suite("Tracker: slides towards a named destination")
struct TrackerNamedSlideTests {
    static let below = Rect(x: 0, y: 800, width: 1280, height: 267)
    static let resting = Rect(x: 0, y: 533, width: 1280, height: 267)
    /// Nine steps from just below the screen up to the resting frame, eased.
    static let slideIn: [Rect] = [743, 693, 652, 615, 585, 563, 546, 536, 533].map {
        Rect(x: 0, y: $0, width: 1280, height: 267)
    }

    static func observe(_ frame: Rect, at time: Double, to destination: Rect?) -> KeyboardObservation {
        var observation = Fixture.observe(frame, at: time, docked: true, edge: .bottom)
        observation.destination = destination
        return observation
    }

    @Test("a show starts below the screen: willShow towards the named frame, progress at every step, didShow after it")
    func show() {
        var tracker = Fixture.tracker()
        var out = tracker.ingest(Self.observe(Self.below, at: 0, to: Self.resting))
        #expect(TrackerPredictionTests.kinds(out) == ["willShow"])
        let will = out.updates[0]
        #expect(will.beginFrame == Self.below && will.endFrame == Self.resting && !will.isEndFramePredicted)
        #expect(tracker.visibleKeyboards.count == 1)
        // One step 200 ms late (a janky frame): still on its way, nothing settles.
        for (index, frame) in Self.slideIn.enumerated() {
            let time = 0.016 * Double(index + 1) + (index >= 4 ? 0.2 : 0)
            out += tracker.ingest(Self.observe(frame, at: time, to: Self.resting))
        }
        out += tracker.advance(to: 2)
        #expect(
            TrackerPredictionTests.kinds(out) == ["willShow"] + Array(repeating: "progress", count: 9) + ["didShow"])
        let fractions = TrackerPredictionTests.progress(out).compactMap(\.fraction)
        #expect(fractions.count == 9 && fractions == fractions.sorted() && fractions.last == 1)
        let did = out.updates[1]
        #expect(did.endFrame == Self.resting && did.beginFrame == Self.below)
        // Timed from the first step (at 0.016) to the last (at 0.344).
        #expect(abs(did.animationDuration - 0.328) < 0.001)
    }

    @Test("a hide starts in place: willHide at once towards the named frame, didHide when it has left")
    func hide() {
        var tracker = Fixture.tracker()
        _ = tracker.run([Fixture.observe(Self.resting, at: 0, docked: true, edge: .bottom)], until: 1)
        var out = tracker.ingest(Self.observe(Self.resting, at: 1, to: Self.below))
        #expect(TrackerPredictionTests.kinds(out) == ["willHide"])
        #expect(out.updates[0].endFrame == Self.below && !out.updates[0].isEndFramePredicted)
        for (index, frame) in Self.slideIn.reversed().dropFirst().enumerated() {
            out += tracker.ingest(Self.observe(frame, at: 1 + 0.016 * Double(index + 1), to: Self.below))
        }
        out += tracker.ingest(Self.observe(Self.below, at: 1.15, to: Self.below))
        #expect(
            TrackerPredictionTests.kinds(out) == ["willHide"] + Array(repeating: "progress", count: 8) + ["didHide"])
        #expect(out.updates.last?.endFrame == Self.below && out.updates.last?.isEndFramePredicted == false)
        #expect(tracker.visibleKeyboards.isEmpty)
    }

    @Test("a show turned back half-way: didShow where it turned, then a hide towards the new name")
    func turnedBack() {
        var tracker = Fixture.tracker()
        var out = tracker.ingest(Self.observe(Self.below, at: 0, to: Self.resting))
        out += tracker.ingest(Self.observe(Self.slideIn[0], at: 0.016, to: Self.resting))
        out += tracker.ingest(Self.observe(Self.slideIn[1], at: 0.032, to: Self.below))
        #expect(TrackerPredictionTests.kinds(out) == ["willShow", "progress", "didShow", "willHide"])
        out += tracker.ingest(Self.observe(Self.below, at: 0.2, to: Self.below))
        #expect(TrackerPredictionTests.kinds(out).last == "didHide")
        #expect(tracker.visibleKeyboards.isEmpty)
    }

    @Test("a slide that stalls settles after the longest step, where it stopped")
    func stalled() {
        var tracker = Fixture.tracker()
        var out = tracker.run([
            Self.observe(Self.below, at: 0, to: Self.resting),
            Self.observe(Self.slideIn[3], at: 0.05, to: Self.resting),
        ])
        out += tracker.advance(to: 0.05 + KeyboardObservation.longestNamedStep - 0.01)
        #expect(!TrackerPredictionTests.kinds(out).contains("didShow"))
        out += tracker.advance(to: 0.05 + KeyboardObservation.longestNamedStep)
        #expect(out.updates.last?.event == .didShow && out.updates.last?.endFrame == Self.slideIn[3])
    }

    @Test("a recording keeps the named destination: the line's `to`")
    func recorded() throws {
        let observation = Self.observe(Self.below, at: 0, to: Self.resting)
        let line = ObservationCodec.encode(observation, relativeTo: 0)
        #expect(line.contains(#""to":{"x":0,"y":533,"width":1280,"height":267}"#), "\(line)")
        let read = try ObservationCodec.decode(line[...], lineNumber: 1, previousTime: nil)
        #expect(read.destination == Self.resting)
        let plain = ObservationCodec.encode(Fixture.observe(Self.resting, at: 0), relativeTo: 0)
        #expect(!plain.contains("\"to\""))
    }
}
