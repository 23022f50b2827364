import Foundation
import KeyboardAdapterCore
import KeyboardBackendInterface
import TestSupport
import Testing
import X11Adapter

/// What must not break the backend: a dying X server, and a flood of short-lived windows.
@Suite("X11 robustness")
struct RobustnessTests {
    @Test("the X server killed while a keyboard is visible: one hide and a clean failure")
    func serverKilled() throws {
        guard let h = try Harness.make(openbox: false, programs: ["matchbox-keyboard"]) else { return }
        try h.session.start("matchbox-keyboard")
        try h.sink.waitForEvents([.willShow, .didShow], since: 0, "matchbox-keyboard to show")

        let bystander = try XTestClient.connect(h.session.display)
        let mark = h.sink.mark
        h.session.killServer()
        let hidden = try h.sink.waitForEvents([.willHide, .didHide], since: mark, "the hide after the server died")
        #expect(events(hidden) == [.willHide, .didHide], "\(describe(hidden))")
        try Wait.require("the backend to report its failure", timeout: 5) { !h.sink.failures.isEmpty }
        #expect(
            h.sink.failures == [
                BackendFailure(backend: "x11", reason: "lost the connection to the X server \(h.session.display)")
            ])
        #expect(h.sink.visible.isEmpty)
        // Another connection in the same process notices the dead server without ending it.
        bystander.sync()
        // The connection has left the loop by itself; stopping is immediate and harmless.
        let started = MonotonicClock.now()
        h.stopBackend()
        #expect(MonotonicClock.now() - started < 1)
    }

    @Test("1000 windows created, mapped and destroyed at full speed while the keyboard moves")
    func windowStorm() throws {
        guard let h = try Harness.make(openbox: false, programs: ["matchbox-keyboard"]) else { return }
        try h.session.start("matchbox-keyboard")
        try h.sink.waitForEvents([.willShow, .didShow], since: 0, "matchbox-keyboard to show")
        let keyboard = try h.onlyKeyboard()
        let window = try windowID(keyboard)

        let mark = h.sink.mark
        let storm = try XTestClient.connect(h.session.display)
        let mover = try XTestClient.connect(h.session.display)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            storm.churnWindows(count: 1000)
            done.signal()
        }
        let positions = [(100, 100), (400, 120), (700, 300), (250, 600), (30, 500)]
        for (x, y) in positions {
            mover.configure(window, x: x, y: y)
            // Longer than the settle interval: every move is its own change.
            Thread.sleep(forTimeInterval: 0.15)
        }
        #expect(done.wait(timeout: .now() + 60) == .success, "the window storm finished")
        let moved = try h.sink.waitForUpdates("five moves to settle", since: mark) { updates in
            updates.last?.event == .didChangeFrame && updates.last?.endFrame.x == 30 && updates.last?.endFrame.y == 500
        }
        // Structure events carry no server time: the backend stamps them when it reads them, so a
        // backlog behind the storm can bring two moves closer than the settle interval, and they
        // merge into one change. What must hold: only frame changes, in will/did pairs, each
        // settling on a requested position, in order, ending at the last one.
        let pairs = events(moved).count / 2
        #expect(
            pairs >= 1
                && events(moved)
                    == Array(repeating: [KeyboardEvent.willChangeFrame, .didChangeFrame], count: pairs).flatMap { $0 },
            "\(describe(moved))")
        let settled = moved.filter { $0.event == .didChangeFrame }.map { [$0.endFrame.x, $0.endFrame.y] }
        var requested = positions.map { [$0.0, $0.1] }[...]
        for frame in settled {
            guard let index = requested.firstIndex(of: frame) else {
                Issue.record("settled at \(frame), not a requested position in order: \(describe(moved))")
                break
            }
            requested = requested[(index + 1)...]
        }
        #expect(settled.last == [30, 500])
        #expect(
            Set(h.sink.observations.map(\.keyboard.id)) == [keyboard.id], "no other window was taken for a keyboard")
        try h.expectFrameMatchesServer(try #require(moved.last))
        #expect(h.sink.failures.isEmpty)
    }

    @Test("hostile class and title bytes (invalid UTF-8, escapes, huge) are decoded lossily and matched by a user rule")
    func hostileNames() throws {
        let hostileClass = "Hostile\u{1b}[2J"
        // Invalid UTF-8 (0xff 0xfe) decodes to two replacement characters; the escape stays as it is.
        let rule = KeyboardRule(name: "hostile", windowClass: hostileClass, title: "Bad\u{FFFD}\u{FFFD}\u{1b}]0;x")
        guard let h = try Harness.make(openbox: false, programs: [], rules: KeyboardRules.builtIn.adding([rule])) else {
            return
        }
        let client = try XTestClient.connect(h.session.display)
        // A huge title on a window that is no keyboard, then the hostile keyboard.
        let noise = client.createWindow(
            x: 0, y: 0, width: 50, height: 50, classBytes: Array("a\0b\0".utf8),
            titleBytes: Array(repeating: 0xff, count: 200_000))
        let window = client.createWindow(
            x: 40, y: 600, width: 600, height: 150, classBytes: [0xff, 0xfe, 0] + Array("\(hostileClass)\0".utf8),
            titleBytes: Array("Bad".utf8) + [0xff, 0xfe] + Array("\u{1b}]0;x".utf8))
        let shown = try h.sink.waitForEvents(
            [.willShow, .didShow], since: 0, "the hostile window to show as a keyboard")
        #expect(events(shown) == [.willShow, .didShow], "\(describe(shown))")
        #expect(shown.last?.keyboard.name == "hostile")
        #expect(try windowID(try #require(shown.last).keyboard) == window)
        try h.expectFrameMatchesServer(try #require(shown.last))

        let mark = h.sink.mark
        client.destroy(window)
        client.destroy(noise)
        let gone = try h.sink.waitForEvents([.willHide, .didHide], since: mark, "the hostile window to go")
        #expect(events(gone) == [.willHide, .didHide])
        #expect(h.sink.failures.isEmpty)
    }
}
