import KeyboardAdapter
import Testing

@testable import kbdemo

@Suite("kbdemo: bar motion")
struct BarMotionTests {
    @Test("a move without a measured duration is a jump")
    func jump() {
        var bar = BarMotion(inset: 0)
        bar.move(to: 140, at: 10, duration: 0, curve: .none)
        #expect(!bar.isMoving(at: 10))
        #expect(bar.inset(at: 10) == 140)
    }

    @Test("a measured move goes from where the bar is to the target over the duration")
    func animated() {
        var bar = BarMotion(inset: 0)
        bar.move(to: 200, at: 10, duration: 0.25, curve: .linear)
        #expect(bar.isMoving(at: 10.1))
        #expect(bar.inset(at: 10) == 0)
        #expect(bar.inset(at: 10.125) == 100)
        #expect(bar.inset(at: 10.25) == 200)
        #expect(!bar.isMoving(at: 10.25))
        // Retargeted halfway: starts from the current place, not from the old start.
        bar.move(to: 0, at: 10.125, duration: 0.1, curve: .linear)
        #expect(bar.inset(at: 10.125) == 100)
        #expect(bar.inset(at: 10.175) == 50)
    }

    @Test("every curve starts at 0 and ends at 1")
    func curves() {
        for curve in [AnimationCurve.none, .linear, .easeIn, .easeOut, .easeInOut, .unknown] {
            #expect(BarMotion.ease(0, curve) == 0)
            #expect(BarMotion.ease(1, curve) == 1)
        }
    }
}
