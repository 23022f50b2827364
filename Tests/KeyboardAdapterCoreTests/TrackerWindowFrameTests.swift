import Testing

@testable import KeyboardAdapterCore

@Suite("Tracker: the keyboard's own window beside its frame")
struct TrackerWindowFrameTests {
    /// A floating keyboard framed by a window manager: a 20-pixel title bar and 1-pixel borders
    /// around its own window.
    static func framed(_ frame: Rect, at time: Double) -> KeyboardObservation {
        var observation = Fixture.observe(frame, at: time)
        observation.windowFrame = Rect(
            x: frame.x + 1, y: frame.y + 20, width: frame.width - 2, height: frame.height - 21)
        return observation
    }

    @Test("every event carries the window inside its end frame, a predicted end frame included; the state too")
    func travelsWithTheFrame() {
        var tracker = Fixture.tracker()
        let frame = Fixture.floating
        let inside = Rect(x: frame.x + 1, y: frame.y + 20, width: frame.width - 2, height: frame.height - 21)
        let shown = tracker.run([Self.framed(frame, at: 0)], until: 1).updates
        #expect(shown.map(\.event) == [.willShow, .didShow])
        #expect(shown.map(\.endFrame) == [frame, frame])
        #expect(shown.map(\.windowFrame) == [inside, inside])
        #expect(tracker.visibleKeyboards.map(\.windowFrame) == [inside])

        let moved = frame.offsetBy(dx: 50, dy: 100)
        let move = tracker.run([Self.framed(moved, at: 2)], until: 3).updates
        #expect(move.map(\.event) == [.willChangeFrame, .didChangeFrame])
        #expect(move.map(\.windowFrame) == [inside.offsetBy(dx: 50, dy: 100), inside.offsetBy(dx: 50, dy: 100)])

        // Unmapped: the hide ends just past the bottom edge, and the window with it.
        let hide = tracker.run([Fixture.observe(nil, at: 4)], until: 5).updates
        #expect(hide.map(\.event) == [.willHide, .didHide])
        let past = hide.last?.endFrame ?? .zero
        #expect(past.y >= Fixture.screen.frame.maxY, "predicted past the edge: \(past)")
        let expected = Rect(x: past.x + 1, y: past.y + 20, width: past.width - 2, height: past.height - 21)
        #expect(hide.map(\.windowFrame) == [expected, expected])
    }

    @Test("no window frame where the window is the whole frame, also after a framed one, and none at an unknown place")
    func absentWhereNotSeen() {
        var tracker = Fixture.tracker()
        let plain = tracker.run([Fixture.observe(Fixture.floating, at: 0)], until: 1).updates
        #expect(plain.map(\.windowFrame) == [nil, nil])
        let moved = Fixture.floating.offsetBy(dx: 0, dy: 100)
        _ = tracker.run([Self.framed(moved, at: 2)], until: 3)
        // The window manager took its decorations away: the window is the frame again.
        let bare = tracker.run([Fixture.observe(moved.offsetBy(dx: 10, dy: 0), at: 4)], until: 5).updates
        #expect(bare.map(\.event) == [.willChangeFrame, .didChangeFrame])
        #expect(bare.map(\.windowFrame) == [nil, nil])

        var unknown = Fixture.tracker()
        var somewhere = KeyboardObservation(
            time: 0, keyboard: Fixture.osk, frame: nil, output: Fixture.screen, geometry: .unknown, isShown: true)
        somewhere.windowFrame = Fixture.floating
        let updates = unknown.run([somewhere], until: 1).updates
        #expect(updates.map(\.event) == [.willShow, .didShow])
        #expect(updates.map(\.windowFrame) == [nil, nil])
    }
}
