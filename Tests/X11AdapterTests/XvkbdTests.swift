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
        var keyboard: ChildProcess?
        let shown = try h.step("xvkbd to show", expecting: [.willShow, .didShow]) {
            keyboard = try h.session.start("xvkbd")
        }
        #expect(shown.last?.keyboard.name == "xvkbd")
        let hex = "0x" + String(try windowID(try h.onlyKeyboard()), radix: 16)
        try h.step("the move", expecting: [.willChangeFrame, .didChangeFrame]) {
            try h.session.xdotool("windowmove", hex, "200", "500")
        }
        try h.step("the hide after the kill", expecting: [.willHide, .didHide]) { keyboard?.signal(SIGTERM) }
        #expect(h.sink.visible.isEmpty)
    }

    @Test(
        "under openbox's own decorations: the frame covers the title bar, the window is inside it; started, moved, minimized and restored (one hide, one show), killed"
    )
    func underOpenbox() throws {
        guard let h = try Harness.make(openbox: true, programs: ["xvkbd"]) else { return }
        var keyboard: ChildProcess?
        let shown = try h.step("xvkbd to show", expecting: [.willShow, .didShow]) {
            keyboard = try h.session.start("xvkbd")
        }
        // Openbox's default theme puts a title bar above the window and a handle below it.
        let update = try #require(shown.last)
        let window = try #require(update.windowFrame, "openbox's title bar is not in the frame: \(update.endFrame)")
        #expect(window.y > update.endFrame.y && window.maxY <= update.endFrame.maxY)
        #expect(window.x >= update.endFrame.x && window.maxX <= update.endFrame.maxX)
        print(
            "xvkbd under openbox: frame \(update.endFrame), window \(window), title bar \(window.y - update.endFrame.y) px"
        )
        let hex = "0x" + String(try windowID(try h.onlyKeyboard()), radix: 16)
        let moved = try h.step("the move", expecting: [.willChangeFrame, .didChangeFrame]) {
            try h.session.xdotool("windowmove", hex, "150", "450")
        }
        let placed = try #require(moved.last).endFrame

        // openbox plays an iconify animation on the frame, past the bottom of the screen, after
        // the client is unmapped (and in reverse on restore): it must not show up as frame
        // changes. The long quiet time lets any such change arrive before the check.
        let hidden = try h.step("the minimize", expecting: [.willHide, .didHide], quiet: 0.8) {
            try h.session.xdotool("windowminimize", hex)
        }
        #expect(hidden.first?.beginFrame == placed)
        let restored = try h.step("the restore", expecting: [.willShow, .didShow], quiet: 0.8) {
            try h.session.xdotool("windowactivate", hex)
        }
        #expect(restored.last?.endFrame == placed)
        try h.step("the hide after the kill", expecting: [.willHide, .didHide]) { keyboard?.signal(SIGKILL) }
        #expect(h.sink.visible.isEmpty)
    }
}
