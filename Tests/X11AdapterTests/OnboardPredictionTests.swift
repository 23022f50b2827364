import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing
import X11Adapter

/// What will events promise with the real onboard docked at the bottom, shown and hidden over its
/// D-Bus interface three times: the destination at the first step, one end frame per hide, timing
/// predicted from the slide before, one curve both ways, and the frames in between.
@Suite("onboard: predictions and progress")
struct OnboardPredictionTests {
    @Test("docked at the bottom, three slides each way", arguments: [false, true])
    func threeSlides(openbox: Bool) throws {
        guard
            let h = try Harness.make(
                openbox: openbox, programs: OnboardTests.programs, settleInterval: OnboardTests.slideSettle)
        else { return }
        let (onboard, _) = try OnboardTests.show(h, OnboardTests.dockedBottom, "docked onboard to show")
        defer { onboard.stop() }
        var curves: [KeyboardEvent: [AnimationCurve]] = [:]
        for cycle in 1...3 {
            for (method, expected) in [("Hide", [KeyboardEvent.willHide, .didHide]), ("Show", [.willShow, .didShow])] {
                let mark = h.sink.mark
                let pair = try h.step("cycle \(cycle): D-Bus \(method)", expecting: expected) {
                    try onboard.call(method)
                }
                guard pair.count == 2 else { continue }
                let (will, did) = (pair[0], pair[1])
                let what = "cycle \(cycle) \(method):\n\(describe(pair))"
                if will.event == .willShow {
                    // The destination, known at the first step, is where xwininfo finds it after.
                    try h.expectFrameMatchesServer(
                        KeyboardUpdate(
                            event: .didShow, state: will.state, backend: "x11", beginFrame: will.beginFrame,
                            endFrame: will.endFrame, isVisible: true))
                    #expect(will.isEndFramePredicted, "\(what)")
                } else {
                    #expect(will.endFrame == did.endFrame, "\(what)")
                    #expect(will.endFrame.y == h.session.height, "just past the bottom edge: \(what)")
                }
                #expect(did.timing == .measured && did.animationDuration > 0.1, "\(what)")
                if cycle == 1 {
                    #expect(will.timing == .unknown, "the first slide has no prediction: \(what)")
                } else {
                    #expect(will.timing == .predicted, "\(what)")
                    let error = abs(will.animationDuration - did.animationDuration) / did.animationDuration
                    #expect(error <= 0.35, "predicted \(will.animationDuration) s, measured \(did.animationDuration) s")
                    #expect(will.animationCurve == did.animationCurve, "\(what)")
                }
                curves[did.event, default: []].append(did.animationCurve)
                let frames = h.sink.progress(afterUpdate: mark + 1)
                #expect(frames.count >= 8, "\(frames.count) progress frames: \(what)")
                let fractions = frames.compactMap(\.fraction)
                #expect(fractions.count == frames.count && fractions == fractions.sorted(), "\(fractions)")
                let ys = frames.map(\.frame.y)
                #expect(ys == (will.event == .willShow ? ys.sorted(by: >) : ys.sorted()), "moving one way: \(ys)")
            }
        }
        let shows = curves[.didShow] ?? []
        let hides = curves[.didHide] ?? []
        #expect(Set(shows).count == 1 && Set(shows) == Set(hides), "curves: show \(shows), hide \(hides)")
        #expect(!shows.contains(.unknown) && !shows.contains(AnimationCurve.none), "\(shows)")
    }
}
