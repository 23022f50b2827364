import Foundation
import KeyboardAdapterCore
import Synchronization
import TestSupport
import Testing
import WaylandAdapter

extension WaylandIntegration {
    @Suite("wvkbd on headless sway")
    struct WvkbdTests {
        static let output = Output(name: "HEADLESS-1", frame: Rect(x: 0, y: 0, width: 1280, height: 800))

        @Test("show, hide, show with exact frames on a 1280x800 output", arguments: Stack.compositors)
        func showHideShow(stack: Stack) throws {
            guard try Userland.ready(stack, ["sway", "wvkbd-mobintl"]) else { return }
            let sway = try HeadlessSway(stack: stack)
            defer { sway.stop() }
            let sink = TrackingSink(backendName: "wayland")
            let backend = WaylandBackend(display: sway.socket)
            #expect(backend.availability().isAvailable)
            let watching = try BackendLoop(backend, sink: sink)
            defer { watching.stop() }
            try Fixture.waitForUsableArea(backend, "HEADLESS-1", Self.output.frame)
            let report = backend.diagnose()
            #expect(report.contains("output HEADLESS-1 0,0 1280x800 usable 0,0 1280x800"), "\(report)")

            let keyboard = try Fixture.wvkbd(sway)
            defer { keyboard.stop() }
            try Fixture.showHideShow(keyboard, sink)

            // wvkbd reserves its height at the bottom (240 px in Debian 12's 0.12, 250 px in Debian
            // 13's 0.15, as each logs); its virtual keyboard's keymap names the layout.
            let expected = Fixture.wvkbdCycles(
                output: Self.output, height: stack == .debian12 ? 240 : 250, stepped: stack != .debian12)
            #expect(expected.contains(Fixture.lines(sink.updates)), "wvkbd's log:\n\(keyboard.log)")
            #expect(sink.failures.isEmpty)
        }
    }
}

extension WaylandIntegration.WvkbdTests {
    @Test(
        "a keyboard already docked when watching starts is baseline until it first hides", arguments: Stack.compositors)
    func visibleAtStart(stack: Stack) throws {
        guard try Programs.ready(["swaymsg"]), try Userland.ready(stack, ["sway", "wvkbd-mobintl"]) else { return }
        let (sway, keyboard, height, docked) = try Fixture.dockedWvkbd(stack)
        defer { sway.stop() }
        defer { keyboard.stop() }

        let (backend, sink, watching) = try Fixture.watch(sway, until: "HEADLESS-1", measures: docked)
        defer { watching.stop() }
        keyboard.signal(SIGUSR1)
        try Fixture.waitForUsableArea(backend, "HEADLESS-1", Self.output.frame)
        #expect(sink.updates.isEmpty)
        keyboard.signal(SIGUSR2)
        try sink.waitForUpdates(2, "wvkbd shown again")
        #expect(sink.events == [.willShow, .didShow])
        #expect(sink.updates.last?.endFrame == Rect(x: 0, y: 800 - height, width: 1280, height: height))
    }
}

extension WaylandIntegration {
    @Suite("wvkbd through the KeyboardManager")
    struct WvkbdManagerTests {
        @Test(
            "isLocal follows what the app says about its text input; the manager's state follows the keyboard",
            arguments: Stack.compositors)
        func ownership(stack: Stack) throws {
            guard try Userland.ready(stack, ["sway", "wvkbd-mobintl"]) else { return }
            let sway = try HeadlessSway(stack: stack)
            defer { sway.stop() }
            let backend = WaylandBackend(display: sway.socket)
            let manager = KeyboardManager(
                backend: backend)
            let received = Mutex<[KeyboardUpdate]>([])
            let subscription = manager.onEvent(delivery: .immediate) { update in received.withLock { $0.append(update) }
            }
            defer { subscription.cancel() }
            try manager.start()
            defer { manager.stop() }
            try Fixture.waitForUsableArea(backend, "HEADLESS-1", Rect(x: 0, y: 0, width: 1280, height: 800))
            let keyboard = try Fixture.wvkbd(sway)
            defer { keyboard.stop() }
            func waitFor(_ count: Int, _ what: String) throws {
                try Wait.require(
                    "\(what) (\(count) events; have \(received.withLock { $0.map(\.event) }))",
                    timeout: 10
                ) { received.withLock { $0.count } >= count }
            }

            manager.textInputActive = true
            keyboard.signal(SIGUSR2)
            try waitFor(2, "wvkbd shown for this app")
            // wvkbd 0.12's 240 px, 0.15's 250 px: the settled strip, whatever a first show passed through.
            let height = stack == .debian12 ? 240 : 250
            #expect(manager.currentFrame == Rect(x: 0, y: 800 - height, width: 1280, height: height))
            keyboard.signal(SIGUSR1)
            try waitFor(4, "wvkbd hidden")
            #expect(!manager.isVisible)
            manager.textInputActive = false
            keyboard.signal(SIGUSR2)
            try waitFor(6, "wvkbd shown for another app")

            let updates = received.withLock { $0 }
            #expect(updates.map(\.event) == [.willShow, .didShow, .willHide, .didHide, .willShow, .didShow])
            #expect(updates.map(\.isLocal) == [true, true, true, true, false, false])
            #expect(updates.allSatisfy { $0.backend == "wayland" && $0.keyboard.id == "wayland:HEADLESS-1:bottom" })
        }
    }
}
