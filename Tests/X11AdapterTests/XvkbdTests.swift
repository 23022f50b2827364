import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing
import X11Adapter

/// xvkbd, the Xt/Xaw keyboard: class `XVkbd`, a 1-pixel border, no show/hide of its own.
@Suite("xvkbd")
struct XvkbdTests {
    @Test("without a window manager: started, moved, killed")
    func withoutWindowManager() throws {
        guard let h = try Harness.make(openbox: false, programs: ["xvkbd"]) else { return }
        let keyboard = try h.session.start("xvkbd")

        let shown = try h.sink.waitForEvents([.willShow, .didShow], since: 0, "xvkbd to show")
        #expect(events(shown) == [.willShow, .didShow], "\(describe(shown))")
        #expect(shown.last?.keyboard.name == "xvkbd")
        try h.expectFrameMatchesServer(try #require(shown.last))
        let hex = "0x" + String(try windowID(try h.onlyKeyboard()), radix: 16)

        var mark = h.sink.mark
        try h.session.xdotool("windowmove", hex, "200", "500")
        let moved = try h.sink.waitForEvents([.willChangeFrame, .didChangeFrame], since: mark, "the move")
        #expect(events(moved) == [.willChangeFrame, .didChangeFrame], "\(describe(moved))")
        try h.expectFrameMatchesServer(try #require(moved.last))

        mark = h.sink.mark
        keyboard.signal(SIGTERM)
        let killed = try h.sink.waitForEvents([.willHide, .didHide], since: mark, "the hide after the kill")
        #expect(events(killed) == [.willHide, .didHide], "\(describe(killed))")
        #expect(h.sink.visible.isEmpty)
    }

    @Test("under openbox: started, moved, minimized and restored (one hide, one show), killed")
    func underOpenbox() throws {
        guard let h = try Harness.make(openbox: true, programs: ["xvkbd"]) else { return }
        let keyboard = try h.session.start("xvkbd")

        var shown = try h.sink.waitForEvents([.willShow, .didShow], since: 0, "xvkbd to show")
        #expect(events(shown) == [.willShow, .didShow], "\(describe(shown))")
        try h.expectFrameMatchesServer(try #require(shown.last))
        let hex = "0x" + String(try windowID(try h.onlyKeyboard()), radix: 16)

        var mark = h.sink.mark
        try h.session.xdotool("windowmove", hex, "150", "450")
        let moved = try h.sink.waitForEvents([.willChangeFrame, .didChangeFrame], since: mark, "the move")
        #expect(events(moved) == [.willChangeFrame, .didChangeFrame], "\(describe(moved))")
        try h.expectFrameMatchesServer(try #require(moved.last))
        let placed = try #require(moved.last).endFrame

        // openbox plays an iconify animation on the frame, past the bottom of the screen, after
        // the client is unmapped: it must not show up as frame changes.
        mark = h.sink.mark
        try h.session.xdotool("windowminimize", hex)
        let hidden = try h.sink.waitForEvents([.willHide, .didHide], since: mark, "the minimize")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(
            events(h.sink.updates(since: mark)) == [.willHide, .didHide], "\(describe(h.sink.updates(since: mark)))")
        #expect(hidden.first?.beginFrame == placed)

        mark = h.sink.mark
        try h.session.xdotool("windowactivate", hex)
        shown = try h.sink.waitForEvents([.willShow, .didShow], since: mark, "the restore")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(
            events(h.sink.updates(since: mark)) == [.willShow, .didShow], "\(describe(h.sink.updates(since: mark)))")
        #expect(shown.last?.endFrame == placed)
        try h.expectFrameMatchesServer(try #require(shown.last))

        mark = h.sink.mark
        keyboard.signal(SIGKILL)
        let killed = try h.sink.waitForEvents([.willHide, .didHide], since: mark, "the hide after the kill")
        #expect(events(killed) == [.willHide, .didHide], "\(describe(killed))")
        #expect(h.sink.visible.isEmpty)
    }
}
