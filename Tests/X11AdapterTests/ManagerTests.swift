import Foundation
import KeyboardAdapterCore
import Synchronization
import TestSupport
import Testing
import X11Adapter

/// The X11 backend behind the real `KeyboardManager`, with the manager's own settle timers.
@Suite("X11 through the KeyboardManager")
struct ManagerTests {
    @Test("xvkbd under openbox: shown, moved; X server killed: hidden, then onStop with the failure")
    func managerEndToEnd() throws {
        guard let h = try Harness.make(openbox: true, programs: ["xvkbd"], startBackend: false) else { return }
        let manager = KeyboardManager(
            backend: h.backend)
        let seen = Mutex<[KeyboardUpdate]>([])
        let stops = Mutex<[BackendFailure?]>([])
        let events = manager.onEvent(delivery: .immediate) { update in seen.withLock { $0.append(update) } }
        let stopped = manager.onStop(delivery: .immediate) { failure in stops.withLock { $0.append(failure) } }
        defer {
            events.cancel()
            stopped.cancel()
            manager.stop()
        }
        try manager.start()
        try h.session.start("xvkbd")
        try Wait.require("didShow from the manager", timeout: 10) { seen.withLock { $0.last?.event == .didShow } }
        let shown = try #require(seen.withLock { $0.last })
        try h.expectFrameMatchesServer(shown)
        #expect(manager.isVisible && manager.currentFrame == shown.endFrame)

        let hex = "0x" + String(try windowID(shown.keyboard), radix: 16)
        try h.session.xdotool("windowmove", hex, "300", "100")
        try Wait.require("didChangeFrame from the manager", timeout: 10) {
            seen.withLock { $0.last?.event == .didChangeFrame }
        }
        let moved = try #require(seen.withLock { $0.last })
        try h.expectFrameMatchesServer(moved)

        h.session.killServer()
        try Wait.require("onStop from the manager", timeout: 10) { !stops.withLock { $0.isEmpty } }
        let all = seen.withLock { $0 }.map(\.event)
        #expect(all == [.willShow, .didShow, .willChangeFrame, .didChangeFrame, .willHide, .didHide], "\(all)")
        #expect(
            stops.withLock { $0 } == [
                BackendFailure(backend: "x11", reason: "lost the connection to the X server \(h.session.display)")
            ])
        #expect(!manager.isVisible)
    }

    @Test("hideKeyboard: xvkbd under openbox is iconified (one hide); without a window manager it is unsupported")
    func hideKeyboard() throws {
        for withOpenbox in [true, false] {
            guard let h = try Harness.make(openbox: withOpenbox, programs: ["xvkbd"], startBackend: false) else {
                return
            }
            let manager = KeyboardManager(
                backend: h.backend)
            let seen = Mutex<[KeyboardEvent]>([])
            let events = manager.onEvent(delivery: .immediate) { update in seen.withLock { $0.append(update.event) } }
            defer {
                events.cancel()
                manager.stop()
            }
            try manager.start()
            try h.session.start("xvkbd")
            try Wait.require("didShow from the manager", timeout: 10) { seen.withLock { $0.last == .didShow } }
            #expect(h.backend.capabilities.contains(.hidesKeyboards))
            if withOpenbox {
                try manager.hideKeyboard()
                try Wait.require("didHide after hideKeyboard", timeout: 10) { seen.withLock { $0.last == .didHide } }
                Thread.sleep(forTimeInterval: 0.5)
                #expect(seen.withLock { $0 } == [.willShow, .didShow, .willHide, .didHide])
                #expect(!manager.isVisible)
            } else {
                #expect(
                    throws: KeyboardControlError.unsupported("xvkbd cannot be hidden on X11 without a window manager")
                ) {
                    try manager.hideKeyboard()
                }
                #expect(manager.isVisible)
            }
        }
    }
}

/// The manager's lifecycle races on the X11 backend, with xvkbd up before the manager starts.
@Suite("X11: the manager's lifecycle under races")
struct X11LifecycleRaceTests {
    @Test(
        "restarts from immediate callbacks (during the start and later), two stops, 1 000 start/stop races, an owner released in its callback: no hang, starts and stops balanced"
    )
    func races() throws {
        guard let h = try Harness.make(openbox: true, programs: ["xvkbd"], startBackend: false) else { return }
        try h.session.start("xvkbd")
        let display = h.session.display
        try Wait.require("xvkbd's window", timeout: 10) {
            X11Backend(displayName: display, rules: .builtIn).diagnose().contains { $0.contains("keyboard xvkbd") }
        }
        try LifecycleRaces.runAll(keyboard: "x11:") { X11Backend(displayName: display, rules: .builtIn) }
    }
}
