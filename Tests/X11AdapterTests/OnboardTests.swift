import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing
import X11Adapter

/// onboard (python3/GTK3) under openbox, each test on its own X server and session bus.
@Suite("onboard")
struct OnboardTests {
    static let programs = ["onboard", "dbus-run-session", "dbus-send", "gsettings"]
    /// Starts onboard with `settings` and waits for exactly one show; returns it and its didShow.
    /// (onboard is ended when the returned value is released, also when this throws.)
    static func show(_ h: Harness, _ settings: [Onboard.Setting], _ what: String) throws -> (Onboard, KeyboardUpdate) {
        var started: Onboard?
        let shown = try h.step(what, expecting: [.willShow, .didShow], timeout: 20) {
            started = try Onboard(on: h.session, settings: settings)
        }
        return (try #require(started), try #require(shown.last))
    }

    /// onboard's slide steps come about 20 ms apart; on a loaded machine one may be late, and a
    /// settle interval shorter than the gap would split one slide into a hide and a show.
    static let slideSettle = 0.15
    static let floating: [Onboard.Setting] = Onboard.quiet + [("org.onboard.window", "docking-enabled", "false")]
    static let dockedBottom = Onboard.dockedBottom

    @Test("floating: started, hidden and shown again over D-Bus")
    func floatingShowHide() throws {
        guard let h = try Harness.make(openbox: true, programs: Self.programs) else { return }
        let (onboard, last) = try Self.show(h, Self.floating, "onboard to show")
        defer { onboard.stop() }
        #expect(last.keyboard.name == "onboard")
        #expect(last.keyboard.pid == onboard.pid)
        #expect(!last.isDocked)

        try h.step("the D-Bus Hide", expecting: [.willHide, .didHide]) { try onboard.call("Hide") }
        let again = try h.step("the D-Bus Show", expecting: [.willShow, .didShow]) { try onboard.call("Show") }
        #expect(again.last?.endFrame == last.endFrame)
    }

    @Test("docked at the bottom: started, slides out on D-Bus Hide (one hide), slides in on Show (one show, ~0.2 s)")
    func dockedSlide() throws {
        guard let h = try Harness.make(openbox: true, programs: Self.programs, settleInterval: Self.slideSettle) else {
            return
        }
        let (onboard, didShow) = try Self.show(h, Self.dockedBottom, "docked onboard to show")
        defer { onboard.stop() }
        #expect(didShow.isDocked && didShow.dockedEdge == .bottom)
        let height = didShow.endFrame.height
        #expect(didShow.endFrame == Rect(x: 0, y: h.session.height - height, width: h.session.width, height: height))
        // At start-up onboard maps the window below the screen and jumps into place at once; the
        // slide is only played on Show and Hide.
        #expect(didShow.beginFrame.y >= h.session.height, "it starts below the screen: \(didShow.beginFrame)")

        let hidden = try h.step("the D-Bus Hide (slide out)", expecting: [.willHide, .didHide]) {
            try onboard.call("Hide")
        }
        #expect(hidden.last?.endFrame.y ?? 0 >= h.session.height, "it slid out below the screen")
        #expect(hidden.first?.beginFrame == didShow.endFrame)
        let slideOut = hidden.last?.animationDuration ?? 0
        #expect(slideOut > 0.12 && slideOut < 1.0, "measured slide-out \(slideOut) s")

        let again = try h.step("the D-Bus Show (slide in)", expecting: [.willShow, .didShow]) {
            try onboard.call("Show")
        }
        #expect(again.last?.endFrame == didShow.endFrame)
        #expect(again.last?.beginFrame.y ?? 0 >= h.session.height, "the slide starts below the screen")
        let slideIn = again.last?.animationDuration ?? 0
        #expect(slideIn > 0.12 && slideIn < 1.0, "measured slide-in \(slideIn) s")
        #expect(again.last?.isDocked == true && again.last?.dockedEdge == .bottom)
    }

    @Test("docking toggled while shown: the window is recreated, and there is never more than one keyboard")
    func dockingToggled() throws {
        guard let h = try Harness.make(openbox: true, programs: Self.programs) else { return }
        let (onboard, floating) = try Self.show(h, Self.floating, "onboard to show")
        defer { onboard.stop() }

        var toggled = try h.step("onboard docked", expecting: [.willHide, .didHide, .willShow, .didShow]) {
            try onboard.set("org.onboard.window", "docking-enabled", "true")
        }
        #expect(toggled.first?.keyboard == floating.keyboard, "the floating window hides")
        let docked = try #require(toggled.last)
        #expect(docked.keyboard.id != floating.keyboard.id, "a new window shows")
        #expect(docked.keyboard.name == "onboard" && docked.isDocked && docked.dockedEdge == .bottom)
        #expect(h.sink.visible.map(\.keyboard) == [docked.keyboard])

        toggled = try h.step("onboard floating again", expecting: [.willHide, .didHide, .willShow, .didShow]) {
            try onboard.set("org.onboard.window", "docking-enabled", "false")
        }
        #expect(toggled.first?.keyboard == docked.keyboard, "the docked window hides")
        #expect(toggled.last?.isDocked == false && toggled.last?.keyboard.id != docked.keyboard.id)
        #expect(h.sink.visible.count == 1)
        #expect(h.sink.mostVisible == 1, "never two onboard keyboards at once")
    }
}
