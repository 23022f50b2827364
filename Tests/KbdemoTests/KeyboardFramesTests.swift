import Foundation
import KeyboardAdapter
import Testing

@testable import kbdemo

@Suite("kbdemo: keyboard frames to the bar's inset")
struct KeyboardFramesTests {
    let window = Rect(x: 240, y: 60, width: 800, height: 600)

    func update(_ event: KeyboardEvent, _ frame: Rect, id: String = "x11:0x1") -> KeyboardUpdate {
        KeyboardUpdate(
            event: event, keyboard: KeyboardIdentity(id: id, name: "xvkbd", kind: .keyboard), backend: "x11",
            beginFrame: frame, endFrame: frame, isVisible: ![.willHide, .didHide].contains(event), isDocked: false,
            geometry: .reported)
    }

    @Test("shown over the bottom, moved, hidden from its willHide on")
    func showMoveHide() {
        var frames = KeyboardFrames()
        #expect(frames.bottomInset(forWindow: window) == 0)
        frames.apply(update(.willShow, Rect(x: 0, y: 500, width: 1280, height: 300)))
        #expect(frames.bottomInset(forWindow: window) == 160)
        frames.apply(update(.willChangeFrame, Rect(x: 0, y: 400, width: 1280, height: 300)))
        #expect(frames.bottomInset(forWindow: window) == 260)
        frames.apply(update(.willHide, Rect(x: 0, y: 800, width: 1280, height: 300)))
        #expect(frames.bottomInset(forWindow: window) == 0)
        #expect(frames.visible.isEmpty)
    }

    @Test("two keyboards: the larger bottom inset wins; one on another output counts for nothing")
    func several() {
        var frames = KeyboardFrames()
        frames.apply(update(.didShow, Rect(x: 0, y: 560, width: 1280, height: 240), id: "a"))
        frames.apply(update(.didShow, Rect(x: 300, y: 520, width: 200, height: 40), id: "b"))
        frames.apply(update(.didShow, Rect(x: 1400, y: 0, width: 500, height: 800), id: "c"))
        #expect(frames.bottomInset(forWindow: window) == 140)
        #expect(frames.visible.count == 3)
    }
}
