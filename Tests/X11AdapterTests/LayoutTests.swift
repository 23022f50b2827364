import Foundation
import KeyboardAdapterCore
import Synchronization
import TestSupport
import Testing
import X11Adapter

/// The active XKB layout, read on the backend's own connection and followed through XKB events.
@Suite("X11 input layout")
struct LayoutTests {
    @Test("setxkbmap while a keyboard is visible: a layout change with the new layout, no frame change")
    func layoutSwitch() throws {
        guard let h = try Harness.make(openbox: false, programs: ["xvkbd", "setxkbmap"], startBackend: false) else {
            return
        }
        try h.session.run("setxkbmap", ["-layout", "us"])
        let manager = KeyboardManager(
            backend: h.backend)
        let events = Mutex<[KeyboardUpdate]>([])
        let layouts = Mutex<[InputLayout?]>([])
        let tokens = [
            manager.onEvent(delivery: .immediate) { update in events.withLock { $0.append(update) } },
            manager.onLayoutChange(delivery: .immediate) { state in layouts.withLock { $0.append(state.layout) } },
        ]
        defer {
            tokens.forEach { $0.cancel() }
            manager.stop()
        }
        try manager.start()
        try h.session.start("xvkbd")
        try Wait.require("didShow", timeout: 10) { events.withLock { $0.last?.event == .didShow } }
        #expect(events.withLock { $0.last?.layout } == InputLayout(name: "English (US)", code: "us"))

        try h.session.run("setxkbmap", ["-layout", "de"])
        try Wait.require("the German layout", timeout: 10) {
            layouts.withLock { $0.last == InputLayout(name: "German", code: "de") }
        }
        try h.session.run("setxkbmap", ["-layout", "fr"])
        try Wait.require("the French layout", timeout: 10) {
            layouts.withLock { $0.last == InputLayout(name: "French", code: "fr") }
        }
        // Two layouts at once: the first group is active.
        try h.session.run("setxkbmap", ["-layout", "us,de"])
        try Wait.require("back to English (US)", timeout: 10) {
            layouts.withLock { $0.last == InputLayout(name: "English (US)", code: "us") }
        }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(
            layouts.withLock { $0 } == [
                InputLayout(name: "German", code: "de"), InputLayout(name: "French", code: "fr"),
                InputLayout(name: "English (US)", code: "us"),
            ])
        #expect(events.withLock { $0.map(\.event) } == [.willShow, .didShow])
        #expect(manager.visibleKeyboards.first?.layout == InputLayout(name: "English (US)", code: "us"))
    }
}
