import Foundation
import TestSupport
import Testing

/// KDE Plasma 6.7: KWin 6.7 from the forky userland with plasma-keyboard, watched by the host's
/// kbwatch through the package's KWin script. plasma-keyboard hides its panel window on a hide
/// and keeps it (KWin marks it hidden) until the next show: a hidden panel is a hidden keyboard.
@Suite("kwin: KWin 6.7 with plasma-keyboard")
struct PlasmaKeyboardTests {
    static let sessionPrograms = ["kwin_wayland", "plasma-keyboard", "dbus-daemon"]

    @Test(
        "three forceActivate shows at the panel's strip, three hides each within 2 s, --state, a stranger's signals believed not, nothing left in KWin"
    )
    func showsAndHides() throws {
        guard try Programs.ready(["dbus-send"]), try Userland.ready(.forky, Self.sessionPrograms) else { return }
        let kwin = try HeadlessKWin(stack: .forky)
        defer { kwin.stop() }
        let hidden = try kwin.kbwatch(["--state", "--json"])
        #expect(hidden.status == 1, "\(hidden.output)")

        let watcher = try kwin.watch(["--json"])
        try Wait.require("the watcher's script to be loaded", timeout: 10) { kwin.loadedScripts().count == 1 }
        var index = 0
        var frames: [PrintedFrame] = []
        for round in 0..<3 {
            try kwin.forceActivate()
            try kwin.waitForVisible(true)
            let willShow = try watcher.next("willShow", after: index)
            let shown = try watcher.next("didShow", after: willShow.index)
            #expect(shown.string("geometry") == "derived", "round \(round): \(shown.values)")
            #expect(shown.object("output").string("name") == "Virtual-0", "round \(round)")
            #expect(shown.values["docked"] as? Bool == true, "round \(round): \(shown.values)")
            let frame = try #require(shown.rect("endFrame"), "round \(round): \(shown.values)")
            frames.append(frame)
            // A strip along the whole bottom of the 1280x800 output.
            #expect(
                frame.x == 0 && frame.width == 1280 && frame.y + frame.height == 800 && frame.height > 100,
                "round \(round): \(frame)")
            let state = try kwin.kbwatch(["--state", "--json"])
            #expect(state.status == 0, "round \(round): \(state.output)")
            let keyboards = try JSONLine(state.output).array("keyboards")
            #expect(keyboards.first?.rect("frame") == frame, "round \(round): \(state.output)")

            try kwin.deactivate()
            try kwin.waitForVisible(false)
            // KWin's own signal has come: the hide follows it at once, not at the next show.
            let gone = try watcher.next("didHide", after: shown.index, timeout: 2)
            index = gone.index
            let after = try kwin.kbwatch(["--state", "--json"])
            #expect(after.status == 1, "round \(round): \(after.output)")
            if round == 0 {
                // A stranger speaking for KWin, addressed to the watcher, between the first hide
                // and the next show: none is believed, and the next shows are heard.
                try ForgedSignals.expectIgnored(KWinTests.forged, by: watcher, bus: kwin.busAddress, as: kwin.user)
            }
        }
        #expect(Set(frames.map(\.description)).count == 1, "one panel, one strip: \(frames)")
        print("plasma-keyboard's strip, as kbwatch reported it: \(frames.first?.description ?? "none")")
        let events = watcher.lines.all.prefix(index + 1).compactMap { try? JSONLine($0.text).string("event") }
        let withoutMoves = events.filter { $0 != "willChangeFrame" && $0 != "didChangeFrame" }
        #expect(
            withoutMoves == Array(repeating: ["willShow", "didShow", "willHide", "didHide"], count: 3).flatMap { $0 },
            "\(events)")
        watcher.stop()
        #expect(watcher.exitStatus == 0, "\(watcher.errors)")
        #expect(kwin.loadedScripts().isEmpty, "left: \(kwin.loadedScripts())")
    }

    @Test("--doctor names KWin's mode; --show says why where KWin will not show its keyboard (mode 0 and 1)")
    func modes() throws {
        guard try Programs.ready(["dbus-send"]), try Userland.ready(.forky, Self.sessionPrograms) else { return }
        let kwin = try HeadlessKWin(stack: .forky)
        defer { kwin.stop() }
        let doctor = try kwin.kbwatch(["--doctor"])
        #expect(doctor.output.contains("mode 2 (shows for any input)"), "\(doctor.output)")

        try kwin.setMode(1)
        let touchOnly = try kwin.kbwatch(["--show"], errors: true)
        #expect(touchOnly.status == 8, "\(touchOnly.output)")
        #expect(touchOnly.output.contains("mode 1"), "\(touchOnly.output)")
        #expect(try kwin.property("visible") == false)

        try kwin.setMode(0)
        let never = try kwin.kbwatch(["--show"], errors: true)
        #expect(never.status == 8, "\(never.output)")
        #expect(never.output.contains("mode 0"), "\(never.output)")

        try kwin.setMode(2)
        let show = try kwin.kbwatch(["--show"])
        #expect(show.status == 0, "\(show.output)")
        try kwin.waitForVisible(true)
        let hide = try kwin.kbwatch(["--hide"])
        #expect(hide.status == 0, "\(hide.output)")
        try kwin.waitForVisible(false)
    }
}
