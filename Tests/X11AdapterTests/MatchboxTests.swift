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
        let keyboard = try h.session.start("matchbox-keyboard")

        var shown = try h.sink.waitForEvents([.willShow, .didShow], since: 0, "matchbox-keyboard to show")
        #expect(events(shown) == [.willShow, .didShow], "\(describe(shown))")
        #expect(shown.last?.keyboard.name == "matchbox-keyboard")
        try h.expectFrameMatchesServer(try #require(shown.last))
        let id = try windowID(try h.onlyKeyboard())
        let hex = "0x" + String(id, radix: 16)

        var mark = h.sink.mark
        try h.session.xdotool("windowmove", hex, "300", "400")
        var moved = try h.sink.waitForEvents([.willChangeFrame, .didChangeFrame], since: mark, "the move")
        #expect(events(moved) == [.willChangeFrame, .didChangeFrame], "\(describe(moved))")
        #expect(moved.last?.endFrame.x == 300 && moved.last?.endFrame.y == 400)
        try h.expectFrameMatchesServer(try #require(moved.last))

        mark = h.sink.mark
        try h.session.xdotool("windowsize", hex, "500", "200")
        moved = try h.sink.waitForEvents([.willChangeFrame, .didChangeFrame], since: mark, "the resize")
        #expect(events(moved) == [.willChangeFrame, .didChangeFrame], "\(describe(moved))")
        #expect(moved.last?.endFrame.width == 500 && moved.last?.endFrame.height == 200)
        try h.expectFrameMatchesServer(try #require(moved.last))

        mark = h.sink.mark
        try h.session.xdotool("windowunmap", hex)
        let hidden = try h.sink.waitForEvents([.willHide, .didHide], since: mark, "the hide")
        #expect(events(hidden) == [.willHide, .didHide], "\(describe(hidden))")

        mark = h.sink.mark
        try h.session.xdotool("windowmap", hex)
        shown = try h.sink.waitForEvents([.willShow, .didShow], since: mark, "the second show")
        #expect(events(shown) == [.willShow, .didShow], "\(describe(shown))")
        try h.expectFrameMatchesServer(try #require(shown.last))

        mark = h.sink.mark
        keyboard.signal(SIGKILL)
        let killed = try h.sink.waitForEvents([.willHide, .didHide], since: mark, "the hide after the kill")
        #expect(events(killed) == [.willHide, .didHide], "\(describe(killed))")
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
        var shown = try h.sink.waitForEvents([.willShow, .didShow], since: 0, "matchbox-keyboard to show")
        #expect(events(shown) == [.willShow, .didShow], "\(describe(shown))")
        try h.expectFrameMatchesServer(try #require(shown.last))
        let id = try windowID(try h.onlyKeyboard())
        let hex = "0x" + String(id, radix: 16)

        var mark = h.sink.mark
        try h.session.xdotool("windowmove", hex, "100", "300")
        var moved = try h.sink.waitForEvents([.willChangeFrame, .didChangeFrame], since: mark, "the move")
        #expect(events(moved) == [.willChangeFrame, .didChangeFrame], "\(describe(moved))")
        try h.expectFrameMatchesServer(try #require(moved.last))

        mark = h.sink.mark
        try h.session.xdotool("windowsize", hex, "900", "300")
        moved = try h.sink.waitForEvents([.willChangeFrame, .didChangeFrame], since: mark, "the resize")
        #expect(events(moved) == [.willChangeFrame, .didChangeFrame], "\(describe(moved))")
        #expect(moved.last?.endFrame.width == 900 && moved.last?.endFrame.height == 300)
        try h.expectFrameMatchesServer(try #require(moved.last))

        mark = h.sink.mark
        control.sendMatchboxCommand(2)
        let hidden = try h.sink.waitForEvents([.willHide, .didHide], since: mark, "the hide command")
        #expect(events(hidden) == [.willHide, .didHide], "\(describe(hidden))")

        mark = h.sink.mark
        control.sendMatchboxCommand(1)
        shown = try h.sink.waitForEvents([.willShow, .didShow], since: mark, "the show command")
        #expect(events(shown) == [.willShow, .didShow], "\(describe(shown))")
        #expect(try windowID(try #require(shown.last).keyboard) == id, "the same client window comes back")
        try h.expectFrameMatchesServer(try #require(shown.last))

        mark = h.sink.mark
        keyboard.signal(SIGKILL)
        let killed = try h.sink.waitForEvents([.willHide, .didHide], since: mark, "the hide after the kill")
        #expect(events(killed) == [.willHide, .didHide], "\(describe(killed))")
        #expect(h.sink.visible.isEmpty)
    }
}
