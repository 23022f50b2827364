import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing
import X11Adapter

/// onboard (python3/GTK3) under openbox, each test on its own X server and session bus.
@Suite("onboard")
struct OnboardTests {
    static let programs = ["onboard", "dbus-run-session", "dbus-send", "gsettings"]
    static let floating: [Onboard.Setting] = Onboard.quiet + [("org.onboard.window", "docking-enabled", "false")]
    static let dockedBottom: [Onboard.Setting] =
        Onboard.quiet + [
            ("org.onboard.window", "docking-enabled", "true"), ("org.onboard.window", "docking-edge", "bottom"),
        ]

    @Test("floating: started, hidden and shown again over D-Bus")
    func floatingShowHide() throws {
        guard let h = try Harness.make(openbox: true, programs: Self.programs) else { return }
        let onboard = try Onboard(on: h.session, settings: Self.floating)
        defer { onboard.stop() }

        var shown = try h.sink.waitForEvents([.willShow, .didShow], since: 0, "onboard to show", timeout: 20)
        #expect(events(shown) == [.willShow, .didShow], "\(describe(shown))")
        let last = try #require(shown.last)
        #expect(last.keyboard.name == "onboard")
        #expect(last.keyboard.pid == onboard.pid)
        #expect(!last.isDocked)
        try h.expectFrameMatchesServer(last)

        var mark = h.sink.mark
        try onboard.call("Hide")
        let hidden = try h.sink.waitForEvents([.willHide, .didHide], since: mark, "the D-Bus Hide")
        #expect(events(hidden) == [.willHide, .didHide], "\(describe(hidden))")

        mark = h.sink.mark
        try onboard.call("Show")
        shown = try h.sink.waitForEvents([.willShow, .didShow], since: mark, "the D-Bus Show")
        #expect(events(shown) == [.willShow, .didShow], "\(describe(shown))")
        #expect(shown.last?.endFrame == last.endFrame)
        try h.expectFrameMatchesServer(try #require(shown.last))
    }

    @Test("docked at the bottom: started, slides out on D-Bus Hide (one hide), slides in on Show (one show, ~0.2 s)")
    func dockedSlide() throws {
        guard let h = try Harness.make(openbox: true, programs: Self.programs) else { return }
        let onboard = try Onboard(on: h.session, settings: Self.dockedBottom)
        defer { onboard.stop() }

        var shown = try h.sink.waitForEvents(
            [.willShow, .didShow], since: 0, "docked onboard to slide in", timeout: 20)
        #expect(events(shown) == [.willShow, .didShow], "\(describe(shown))")
        let didShow = try #require(shown.last)
        #expect(didShow.isDocked && didShow.dockedEdge == .bottom)
        #expect(
            didShow.endFrame
                == Rect(
                    x: 0, y: h.session.height - didShow.endFrame.height, width: h.session.width,
                    height: didShow.endFrame.height))
        // At start-up onboard maps the window below the screen and jumps into place at once; the
        // slide is only played on Show and Hide.
        #expect(didShow.beginFrame.y >= h.session.height, "it starts below the screen: \(didShow.beginFrame)")
        try h.expectFrameMatchesServer(didShow)

        var mark = h.sink.mark
        try onboard.call("Hide")
        let hidden = try h.sink.waitForEvents([.willHide, .didHide], since: mark, "the D-Bus Hide (slide out)")
        #expect(events(hidden) == [.willHide, .didHide], "\(describe(hidden))")
        #expect(hidden.last?.endFrame.y ?? 0 >= h.session.height, "it slid out below the screen")
        #expect(hidden.first?.beginFrame == didShow.endFrame)
        let slideOut = hidden.last?.animationDuration ?? 0
        #expect(slideOut > 0.12 && slideOut < 0.45, "measured slide-out \(slideOut) s")

        mark = h.sink.mark
        try onboard.call("Show")
        shown = try h.sink.waitForEvents([.willShow, .didShow], since: mark, "the D-Bus Show (slide in)")
        #expect(events(shown) == [.willShow, .didShow], "\(describe(shown))")
        #expect(shown.last?.endFrame == didShow.endFrame)
        #expect(shown.last?.beginFrame.y ?? 0 >= h.session.height, "the slide starts below the screen")
        let slideIn = shown.last?.animationDuration ?? 0
        #expect(slideIn > 0.12 && slideIn < 0.45, "measured slide-in \(slideIn) s")
        #expect(shown.last?.isDocked == true && shown.last?.dockedEdge == .bottom)
        try h.expectFrameMatchesServer(try #require(shown.last))
    }

    @Test("docking toggled while shown: the window is recreated, and there is never more than one keyboard")
    func dockingToggled() throws {
        guard let h = try Harness.make(openbox: true, programs: Self.programs) else { return }
        let onboard = try Onboard(on: h.session, settings: Self.floating)
        defer { onboard.stop() }

        let shown = try h.sink.waitForEvents([.willShow, .didShow], since: 0, "onboard to show", timeout: 20)
        let floating = try #require(shown.last)

        var mark = h.sink.mark
        try onboard.set("org.onboard.window", "docking-enabled", "true")
        var toggled = try h.sink.waitForEvents([.willShow, .didShow], since: mark, "onboard docked")
        #expect(events(toggled) == [.willHide, .didHide, .willShow, .didShow], "\(describe(toggled))")
        #expect(toggled.first?.keyboard == floating.keyboard, "the floating window hides")
        let docked = try #require(toggled.last)
        #expect(docked.keyboard.id != floating.keyboard.id, "a new window shows")
        #expect(docked.keyboard.name == "onboard" && docked.isDocked && docked.dockedEdge == .bottom)
        try h.expectFrameMatchesServer(docked)
        #expect(h.sink.visible.map(\.keyboard) == [docked.keyboard])

        mark = h.sink.mark
        try onboard.set("org.onboard.window", "docking-enabled", "false")
        toggled = try h.sink.waitForEvents([.willShow, .didShow], since: mark, "onboard floating again")
        #expect(
            events(toggled).filter { $0 == .willShow || $0 == .didShow } == [.willShow, .didShow],
            "\(describe(toggled))")
        #expect(events(toggled).first == .willHide && toggled.first?.keyboard == docked.keyboard)
        let again = try #require(toggled.last)
        #expect(!again.isDocked)
        try h.expectFrameMatchesServer(again)
        #expect(h.sink.visible.count == 1)
        #expect(h.sink.mostVisible == 1, "never two onboard keyboards at once")
    }
}
