import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing
import X11Adapter

/// RandR monitors, on Xorg with the dummy driver (Xvfb has one monitor that cannot be split).
@Suite("X11 monitors")
struct MonitorTests {
    // Xorg with a configuration file of the test's own needs root; under CI it always runs.
    @Test(
        "two monitors: docked on the right one, floating across both, a monitor change while shown",
        .enabled(
            if: Programs.isRoot || Programs.underCI, "needs root: Xorg with the dummy driver and its own configuration")
    )
    func twoMonitors() throws {
        try #require(Programs.isRoot, "the two-monitor test needs root under CI (Xorg with the dummy driver)")
        let left = Rect(x: 0, y: 0, width: 1280, height: 800)
        let right = Rect(x: 1280, y: 0, width: 1920, height: 1080)
        guard
            let h = try Harness.make(
                openbox: false, programs: ["matchbox-keyboard", "xrandr"], server: .xorgDummy, width: 3200,
                height: 1200,
                setUp: { session in
                    // DUMMY0 shows the left 1280x800 (an automatic monitor); the right monitor is declared.
                    try session.run(
                        "xrandr", ["--fb", "3200x1200", "--output", "DUMMY0", "--mode", "1280x800", "--pos", "0x0"])
                    try session.run("xrandr", ["--setmonitor", "RIGHT", "1920/508x1080/286+1280+0", "none"])
                })
        else { return }
        let monitors = try h.session.run("xrandr", ["--listmonitors"])
        #expect(monitors.contains("Monitors: 2"), "\(monitors)")

        try h.session.start("matchbox-keyboard")
        let shown = try h.sink.waitForEvents([.willShow, .didShow], since: 0, "matchbox-keyboard to show")
        #expect(shown.last?.output == Output(name: "DUMMY0", frame: left))
        let hex = "0x" + String(try windowID(try h.onlyKeyboard()), radix: 16)

        // Along the bottom of the right monitor, spanning its width: docked there.
        var mark = h.sink.mark
        try h.session.xdotool("windowsize", hex, "1920", "200")
        try h.session.xdotool("windowmove", hex, "1280", "880")
        var changed = try h.sink.waitForUpdates("the keyboard docked on the right monitor", since: mark) {
            $0.last?.event == .didChangeFrame && $0.last?.endFrame == Rect(x: 1280, y: 880, width: 1920, height: 200)
        }
        var last = try #require(changed.last)
        #expect(last.output == Output(name: "RIGHT", frame: right))
        #expect(last.isDocked && last.dockedEdge == .bottom, "\(describe(changed))")
        try h.expectFrameMatchesServer(last)

        // Straddling both monitors: floating, on the one it overlaps most.
        mark = h.sink.mark
        try h.session.xdotool("windowmove", hex, "600", "600")
        changed = try h.sink.waitForEvents(
            [.willChangeFrame, .didChangeFrame], since: mark, "the keyboard across both")
        last = try #require(changed.last)
        #expect(!last.isDocked && last.dockedEdge == nil)
        #expect(last.output?.name == "RIGHT", "1320 of its 1920 pixels are on the right monitor")
        try h.expectFrameMatchesServer(last)

        // Docked along the bottom of the left monitor, then that monitor grows: the same frame is
        // reported again with the new output, no longer docked.
        mark = h.sink.mark
        try h.session.xdotool("windowsize", hex, "1280", "200")
        try h.session.xdotool("windowmove", hex, "0", "600")
        changed = try h.sink.waitForUpdates("the keyboard docked on the left monitor", since: mark) {
            $0.last?.event == .didChangeFrame && $0.last?.endFrame == Rect(x: 0, y: 600, width: 1280, height: 200)
        }
        #expect(changed.last?.isDocked == true && changed.last?.output?.name == "DUMMY0")
        mark = h.sink.mark
        try h.session.run("xrandr", ["--fb", "3200x1200", "--output", "DUMMY0", "--mode", "1280x960"])
        changed = try h.sink.waitForEvents([.willChangeFrame, .didChangeFrame], since: mark, "the monitor change")
        #expect(events(changed) == [.willChangeFrame, .didChangeFrame], "\(describe(changed))")
        last = try #require(changed.last)
        #expect(last.output == Output(name: "DUMMY0", frame: Rect(x: 0, y: 0, width: 1280, height: 960)))
        #expect(last.endFrame == Rect(x: 0, y: 600, width: 1280, height: 200) && !last.isDocked)
        try h.expectFrameMatchesServer(last)
    }
}
