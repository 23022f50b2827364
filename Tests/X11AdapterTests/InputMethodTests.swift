import Foundation
import KeyboardAdapterCore
import Synchronization
import TestSupport
import Testing
import X11Adapter

/// fcitx5's real candidate window, brought up headless by typing into a GTK entry.
@Suite("X11 input-method panels")
struct InputMethodTests {
    @Test("fcitx5's candidate window is an input-method panel; with a keyboard, two keyboards and a union")
    func fcitxCandidates() throws {
        guard
            let h = try Harness.make(
                openbox: true, programs: ["fcitx5", "xvkbd", "dbus-run-session", "dbus-send"],
                startBackend: false)
        else { return }
        guard Fcitx5.entryAvailable else {
            try Programs.skip("python3 with GTK 3 (python3-gi, gir1.2-gtk-3.0) is missing")
            return
        }
        let manager = KeyboardManager(
            backend: h.backend)
        let seen = Mutex<[KeyboardUpdate]>([])
        let token = manager.onEvent(delivery: .immediate) { update in seen.withLock { $0.append(update) } }
        defer {
            token.cancel()
            manager.stop()
        }
        try manager.start()
        try h.session.start("xvkbd", ["-geometry", "640x200+320+560"])
        try Wait.require("xvkbd shown", timeout: 15) { seen.withLock { $0.last?.event == .didShow } }
        let keyboard = try #require(seen.withLock { $0.last })

        let fcitx = try Fcitx5(on: h.session)
        defer { fcitx.stop() }
        // The entry's input context reaches fcitx5 over D-Bus some time after the window maps; keys
        // typed before that go to the entry itself. Try again (from a clean entry) until it works.
        try Wait.require("the candidate panel shown", timeout: 40) {
            try? fcitx.openCandidates()
            return Wait.until(timeout: 4) {
                seen.withLock { $0.contains { $0.event == .didShow && $0.keyboard.kind == .inputMethodPanel } }
            }
        }
        let panel = try #require(seen.withLock { $0.last { $0.keyboard.kind == .inputMethodPanel } })
        #expect(panel.keyboard.name == "fcitx5")
        #expect(!panel.isDocked)
        // The list may still grow after it maps: wait until the manager's frame is the server's.
        var settled: KeyboardState?
        try Wait.require("the panel's frame to equal xwininfo's", timeout: 10) {
            guard let panel = manager.visibleKeyboards.first(where: { $0.keyboard.kind == .inputMethodPanel }),
                let window = try? windowID(panel.keyboard), let info = try? h.session.xwininfo(window)
            else { return false }
            settled = panel
            return panel.frame == Rect(x: info.x, y: info.y, width: info.width, height: info.height)
        }
        let panelFrame = try #require(settled).frame
        #expect(manager.visibleKeyboards.count == 2)
        #expect(manager.coveredRegion() == keyboard.endFrame.union(panelFrame))
        #expect(manager.coveredRegion(includingPanels: false) == keyboard.endFrame)
        #expect(manager.currentFrame == keyboard.endFrame)

        try fcitx.closeCandidates()
        try Wait.require("the candidate panel hidden", timeout: 15) {
            seen.withLock { $0.last { $0.keyboard.kind == .inputMethodPanel }?.event == .didHide }
        }
        #expect(manager.visibleKeyboards.map(\.keyboard.id) == [keyboard.keyboard.id])
        let panelEvents = seen.withLock { $0.filter { $0.keyboard.kind == .inputMethodPanel }.map(\.event) }
        #expect(panelEvents.first == .willShow && panelEvents.suffix(2) == [.willHide, .didHide])
        #expect(seen.withLock { $0.filter { $0.keyboard.kind == .keyboard }.map(\.event) } == [.willShow, .didShow])
    }
}
