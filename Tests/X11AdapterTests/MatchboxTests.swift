import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing
import X11Adapter

/// matchbox-keyboard, the plain Xlib keyboard: no WM_CLASS, title `Keyboard`, never takes input.
@Suite("matchbox-keyboard")
struct MatchboxTests {
    @Test("without a window manager: shown, moved, resized, hidden, shown again, killed")
    func withoutWindowManager() throws {
        guard let h = try Harness.make(openbox: false, programs: ["matchbox-keyboard"]) else { return }
        var keyboard: ChildProcess?
        let shown = try h.step("matchbox-keyboard to show", expecting: [.willShow, .didShow]) {
            keyboard = try h.session.start("matchbox-keyboard")
        }
        #expect(shown.last?.keyboard.name == "matchbox-keyboard")
        let hex = "0x" + String(try windowID(try h.onlyKeyboard()), radix: 16)

        let moved = try h.step("the move", expecting: [.willChangeFrame, .didChangeFrame]) {
            try h.session.xdotool("windowmove", hex, "300", "400")
        }
        #expect(moved.last?.endFrame.x == 300 && moved.last?.endFrame.y == 400)
        let resized = try h.step("the resize", expecting: [.willChangeFrame, .didChangeFrame]) {
            try h.session.xdotool("windowsize", hex, "500", "200")
        }
        #expect(resized.last?.endFrame.width == 500 && resized.last?.endFrame.height == 200)
        try h.step("the hide", expecting: [.willHide, .didHide]) { try h.session.xdotool("windowunmap", hex) }
        try h.step("the second show", expecting: [.willShow, .didShow]) { try h.session.xdotool("windowmap", hex) }
        try h.step("the hide after the kill", expecting: [.willHide, .didHide]) { keyboard?.signal(SIGKILL) }
        #expect(h.sink.visible.isEmpty)
    }

    @Test("under openbox: shown by its ClientMessage (-d), moved, resized, hidden, shown again, killed")
    func underOpenbox() throws {
        guard let h = try Harness.make(openbox: true, programs: ["matchbox-keyboard"]) else { return }
        let keyboard = try h.session.start("matchbox-keyboard", ["-d"])
        let control = try XTestClient.connect(h.session.display)
        // In -d mode the keyboard creates its window unmapped and waits for the command; it may
        // not listen yet when the first command is sent, so repeat until it shows.
        try Wait.require("matchbox-keyboard -d to show on command", timeout: 15) {
            control.sendMatchboxCommand(1)
            return Wait.until(timeout: 0.5) { h.sink.updates.contains { $0.event == .didShow } }
        }
        let shown = try h.sink.waitForEvents([.willShow, .didShow], since: 0, "matchbox-keyboard to show")
        #expect(events(shown) == [.willShow, .didShow], "\(describe(shown))")
        try h.expectFrameMatchesServer(try #require(shown.last))
        let id = try windowID(try h.onlyKeyboard())
        let hex = "0x" + String(id, radix: 16)

        try h.step("the move", expecting: [.willChangeFrame, .didChangeFrame]) {
            try h.session.xdotool("windowmove", hex, "100", "300")
        }
        let resized = try h.step("the resize", expecting: [.willChangeFrame, .didChangeFrame]) {
            try h.session.xdotool("windowsize", hex, "900", "300")
        }
        // The client window has the size asked for; the frame adds openbox's decorations.
        let window = resized.last.map { $0.windowFrame ?? $0.endFrame }
        #expect(window?.width == 900 && window?.height == 300)
        try h.step("the hide command", expecting: [.willHide, .didHide]) { control.sendMatchboxCommand(2) }
        let again = try h.step("the show command", expecting: [.willShow, .didShow]) { control.sendMatchboxCommand(1) }
        #expect(try windowID(try #require(again.last).keyboard) == id, "the same client window comes back")
        try h.step("the hide after the kill", expecting: [.willHide, .didHide]) { keyboard.signal(SIGKILL) }
        #expect(h.sink.visible.isEmpty)
    }
}
