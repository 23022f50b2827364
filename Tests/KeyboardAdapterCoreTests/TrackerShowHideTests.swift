import Testing

@testable import KeyboardAdapterCore

@Suite("Tracker: show and hide")
struct TrackerShowHideTests {
    @Test("willShow at the first observation, didShow once settled")
    func showSettles() {
        var tracker = Fixture.tracker()
        let first = tracker.ingest(Fixture.observe(Fixture.docked, at: 1.0))
        #expect(first.steps == [Step(event: .willShow, end: Fixture.docked)])
        #expect(tracker.advance(to: 1.049).isEmpty)
        let settled = tracker.advance(to: 1.05)
        #expect(settled.steps == [Step(event: .didShow, end: Fixture.docked)])
        let update = settled.updates[0]
        #expect(update.isVisible && update.isDocked && update.dockedEdge == .bottom)
        #expect(update.animationDuration == 0 && update.animationCurve == AnimationCurve.none)
        #expect(tracker.nextDeadline == nil)
    }

    @Test("a show with no earlier frame begins just past the docked edge")
    func showBeginsPastDockedEdge() {
        var tracker = Fixture.tracker()
        let top = Rect(x: 0, y: 0, width: 1280, height: 205)
        let updates = tracker.run([Fixture.observe(top, at: 0)], until: 1).updates
        #expect(
            updates.map(\.beginFrame) == [
                Rect(x: 0, y: -205, width: 1280, height: 205),
                Rect(x: 0, y: -205, width: 1280, height: 205),
            ])
        var left = Fixture.tracker()
        let side = Rect(x: 0, y: 0, width: 200, height: 800)
        #expect(
            left.run([Fixture.observe(side, at: 0)]).updates.first?.beginFrame
                == Rect(x: -200, y: 0, width: 200, height: 800))
    }

    @Test("a floating keyboard's show begins below the bottom edge (the iOS convention)")
    func floatingShowBeginsBelowBottom() {
        var tracker = Fixture.tracker()
        let update = tracker.run([Fixture.observe(Fixture.floating, at: 0)]).updates[0]
        #expect(!update.isDocked && update.dockedEdge == nil)
        #expect(update.beginFrame == Rect(x: 100, y: 800, width: 700, height: 205))
    }

    @Test("settle interval 0 gives willShow and didShow at once")
    func zeroSettle() {
        var tracker = Fixture.tracker(settle: 0)
        #expect(
            tracker.ingest(Fixture.observe(Fixture.docked, at: 3)).steps
                == [Step(event: .willShow, end: Fixture.docked), Step(event: .didShow, end: Fixture.docked)])
    }

    @Test("a burst while showing is one show ending at the final frame, with the measured duration")
    func burstDuringShow() {
        var tracker = Fixture.tracker()
        let a = Rect(x: 0, y: 600, width: 1280, height: 200)
        let b = Rect(x: 0, y: 580, width: 1280, height: 220)
        let out = tracker.run(
            [
                Fixture.observe(a, at: 0), Fixture.observe(b, at: 0.02),
                Fixture.observe(Fixture.docked, at: 0.04),
            ], until: 1)
        #expect(out.steps == [Step(event: .willShow, end: a), Step(event: .didShow, end: Fixture.docked)])
        #expect(abs(out.updates[1].animationDuration - 0.04) < 1e-9)
        #expect(out.updates[1].beginFrame == out.updates[0].beginFrame)
    }

    @Test("an unmap hides at once; the end frame is past the docked edge")
    func hideByUnmap() {
        var tracker = Fixture.tracker()
        _ = tracker.run([Fixture.observe(Fixture.docked, at: 0)], until: 1)
        let out = tracker.ingest(Fixture.observe(nil, at: 2))
        let offScreen = Rect(x: 0, y: 800, width: 1280, height: 240)
        #expect(out.steps == [Step(event: .willHide, end: offScreen), Step(event: .didHide, end: offScreen)])
        #expect(out.updates.allSatisfy { !$0.isVisible && $0.beginFrame == Fixture.docked })
        #expect(tracker.visibleKeyboards.isEmpty)
    }

    @Test("a jump wholly off screen is a hide whose end frame is the observed one")
    func hideByJumpOffScreen() {
        var tracker = Fixture.tracker()
        _ = tracker.run([Fixture.observe(Fixture.floating, at: 0)], until: 1)
        let away = Rect(x: 100, y: 1280, width: 700, height: 205)
        #expect(
            tracker.ingest(Fixture.observe(away, at: 2)).steps
                == [Step(event: .willHide, end: away), Step(event: .didHide, end: away)])
    }

    @Test("never a hide for a keyboard never shown")
    func noHideWithoutShow() {
        var tracker = Fixture.tracker()
        let out = tracker.run(
            [
                Fixture.observe(nil, at: 0),
                Fixture.observe(Rect(x: 0, y: 900, width: 1280, height: 240), at: 0.1),
                Fixture.observe(nil, at: 0.2),
            ], until: 5)
        #expect(out.isEmpty)
    }

    @Test("a show hidden again within the settle window still completes: willShow, didShow, willHide, didHide")
    func hiddenWithinSettleWindow() {
        var tracker = Fixture.tracker()
        let out = tracker.run([Fixture.observe(Fixture.docked, at: 0), Fixture.observe(nil, at: 0.01)], until: 1)
        let off = Rect(x: 0, y: 800, width: 1280, height: 240)
        #expect(
            out.steps == [
                Step(event: .willShow, end: Fixture.docked), Step(event: .didShow, end: Fixture.docked),
                Step(event: .willHide, end: off), Step(event: .didHide, end: off),
            ])
    }

    @Test("the same frame observed again produces nothing")
    func duplicatesProduceNothing() {
        var tracker = Fixture.tracker()
        var out = tracker.run([Fixture.observe(Fixture.docked, at: 0)], until: 1)
        for t in stride(from: 1.0, to: 2.0, by: 0.1) { out += tracker.ingest(Fixture.observe(Fixture.docked, at: t)) }
        out += tracker.advance(to: 10)
        #expect(out.steps == [Step(event: .willShow, end: Fixture.docked), Step(event: .didShow, end: Fixture.docked)])
    }

    @Test("shown, hidden, shown again: two complete shows")
    func showAgain() {
        var tracker = Fixture.tracker()
        let out = tracker.run(
            [
                Fixture.observe(Fixture.docked, at: 0), Fixture.observe(nil, at: 1),
                Fixture.observe(Fixture.docked, at: 2),
            ], until: 3)
        #expect(out.steps.map(\.event) == [.willShow, .didShow, .willHide, .didHide, .willShow, .didShow])
    }

    @Test("hideAll hides every visible keyboard and nothing else")
    func hideAll() {
        var tracker = Fixture.tracker()
        _ = tracker.run(
            [
                Fixture.observe(Fixture.docked, at: 0),
                Fixture.observe(Rect(x: 300, y: 300, width: 200, height: 100), at: 0, keyboard: Fixture.panel),
                Fixture.observe(nil, at: 0, keyboard: KeyboardIdentity(id: "test:3", name: "never")),
            ], until: 1)
        let out = tracker.hideAll(at: 2)
        #expect(out.updates.map(\.event) == [.willHide, .didHide, .willHide, .didHide])
        #expect(Set(out.updates.map(\.keyboard.id)) == [Fixture.osk.id, Fixture.panel.id])
        #expect(tracker.visibleKeyboards.isEmpty)
    }
}
