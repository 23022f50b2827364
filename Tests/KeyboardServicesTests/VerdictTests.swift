import KeyboardAdapterCore
import Testing

@testable import KeyboardSessionService

/// The session service numbers shows and sends a subscriber its verdict only when a show
/// changes it; the client finds the verdict of each event's show from them.
@Suite("shows and verdicts")
struct VerdictTests {
    static func update(_ event: KeyboardEvent, _ id: String) -> KeyboardUpdate {
        KeyboardUpdate(
            event: event,
            state: KeyboardState(
                keyboard: KeyboardIdentity(id: id, name: id), frame: Rect(x: 0, y: 600, width: 1280, height: 200),
                isDocked: true, geometry: .reported),
            backend: "x11", beginFrame: .zero, endFrame: Rect(x: 0, y: 600, width: 1280, height: 200),
            isVisible: event != .willHide && event != .didHide)
    }

    @Test("a show is numbered at its willShow, every later event of it carries that number, a hide ends it")
    func numbers() {
        var shows = ShowNumbers()
        #expect(shows.number(for: Self.update(.willShow, "a")) == (1, true))
        #expect(shows.number(for: Self.update(.didShow, "a")) == (1, false))
        #expect(shows.number(for: Self.update(.willShow, "b")) == (2, true))
        #expect(shows.number(for: Self.update(.didChangeFrame, "a")) == (1, false))
        #expect(shows.number(ofKeyboard: "b") == 2)
        #expect(shows.number(for: Self.update(.didHide, "a")) == (1, false))
        shows.ended("a")
        #expect(shows.number(ofKeyboard: "a") == nil)
        // A keyboard first heard of in the middle of a show starts one.
        #expect(shows.number(for: Self.update(.didChangeFrame, "c")) == (3, true))
        #expect(shows.number(for: Self.update(.willShow, "a")) == (4, true))
    }

    @Test("the verdict of a show is the last one sent for a show up to it; none before the first")
    func verdicts() {
        var verdicts = SubscriberVerdicts()
        #expect(verdicts.local(for: 1) == nil, "nothing heard yet: published before the subscription")
        verdicts.record(true, from: 3)
        #expect(verdicts.local(for: 2) == nil, "before the first verdict")
        #expect(verdicts.local(for: 3) == .some(true))
        #expect(verdicts.local(for: 9) == .some(true), "unchanged until the next verdict")
        verdicts.record(nil, from: 10)
        #expect(verdicts.local(for: 10) == .some(nil), "unknown is a verdict too")
        verdicts.record(false, from: 12)
        #expect(verdicts.local(for: 11) == .some(nil))
        #expect(verdicts.local(for: 12) == .some(false))
        // Options changed: the verdicts from show 10 on are said again.
        verdicts.record(true, from: 10)
        #expect(verdicts.local(for: 12) == .some(true))
        #expect(verdicts.local(for: 5) == .some(true))
    }

    @Test("at most 64 changes are kept; a show older than all of them is judged unknown, not dropped")
    func bounded() {
        var verdicts = SubscriberVerdicts()
        for show in 1...200 { verdicts.record(show % 2 == 0, from: UInt32(show)) }
        #expect(verdicts.local(for: 200) == .some(true))
        #expect(verdicts.local(for: 137) == .some(false))
        #expect(verdicts.local(for: 2) == .some(nil))
    }
}
