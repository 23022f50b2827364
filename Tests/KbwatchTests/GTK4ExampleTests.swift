import CX11
import Foundation
import KeyboardAdapterCore
import ScreenCapture
import TestSupport
import Testing

/// The GTK 4 + libadwaita chat screen (`Examples/gtk4/chat.py`), on libkeyboard-adapter and its
/// GTK 4 companion (built by `KeyboardAdapterLibrary`, found through `GI_TYPELIB_PATH`), fed by
/// the session service, run with a real keyboard: its bar must end exactly on the keyboard's top edge, in what it
/// reports and on screen, follow a move, drop back on hide and survive the service's restart.
@Suite("GTK 4 example: chat")
struct GTK4ExampleTests {
    static let script = SchemaValidator.repository.appendingPathComponent("Examples/gtk4/chat.py").path

    /// What the app runs with: GTK's software renderer, the library's build.
    static let environment: [String: String?] = KeyboardAdapterLibrary.environment.merging([
        "GSK_RENDERER": "cairo", "NO_AT_BRIDGE": "1",
    ]) { $1 }

    /// Whether python3 with GTK 4 and libadwaita is there, and the library and its GTK 4 companion
    /// are built; skips (fails under CI) when not.
    static func ready() throws -> Bool {
        guard try KeyboardAdapterLibrary.gtk4Ready() else { return false }
        let probe = try Programs.run(
            "/usr/bin/python3",
            ["-c", "import gi; gi.require_version('Gtk', '4.0'); gi.require_version('Adw', '1')"])
        guard probe.status == 0 else {
            try Programs.skip("python3 with GTK 4 and libadwaita (gir1.2-gtk-4.0, gir1.2-adw-1) is missing")
            return false
        }
        return true
    }

    /// The window's content as the app last printed it (`content X,Y WxH`), once it has and
    /// `settled` accepts it.
    static func content(_ app: ChildProcess, settled: (Rect) -> Bool = { _ in true }) throws -> Rect {
        var found: Rect?
        try Wait.require("the app's content frame; it said:\n\(app.log)", timeout: 30) {
            found = app.log.matches(of: /^content (-?\d+),(-?\d+) (\d+)x(\d+)$/.anchorsMatchLineEndings()).last.flatMap
            { match in
                guard let x = Int(match.1), let y = Int(match.2), let width = Int(match.3), let height = Int(match.4)
                else { return nil }
                return Rect(x: x, y: y, width: width, height: height)
            }
            return found.map(settled) ?? false || !app.isRunning
        }
        return try #require(found, "the app ended: \(app.log)")
    }

    @Test(
        "X11 (Xvfb, xvkbd): the bar ends on xvkbd's top edge on screen, follows a move, survives the service's restart, drops back on hide"
    )
    func x11() throws {
        guard try Programs.ready(["Xvfb", "xdotool", "xwininfo", "xvkbd", "dbus-daemon", "dbus-send"]),
            try Self.ready()
        else { return }
        let world = try ExampleBar.ServiceWorld()
        defer { world.stop() }
        // GTK 4 cannot place its window: with no window manager it is at the screen's top-left,
        // its content inset by the resize borders GTK draws around it. The checks read where the
        // content is once the app says.
        try ExampleBar.followsKeyboardThroughService(
            in: world,
            measure: { app in
                let content = try Self.content(app)
                let pixels = try ExamplePixels.x11(
                    display: world.session.display, column: content.maxX - 100)
                return (content.y + content.height, pixels)
            },
            start: {
                try world.session.start(
                    "/usr/bin/python3", [Self.script, "--size", "800x600"],
                    environment: world.environment.merging(Self.environment) { $1 })
            })
    }

    @Test(
        "X11 with a window manager: dragged down over xvkbd the bar follows the pointer on screen; released early it goes back, past half the keyboard hides"
    )
    func dragToDismiss() throws {
        guard try Programs.ready(["Xvfb", "openbox", "xdotool", "xwininfo", "xvkbd", "dbus-daemon"]), try Self.ready()
        else { return }
        let world = try ExampleBar.ServiceWorld()
        defer { world.stop() }
        // The window manager is what hides xvkbd (it iconifies it), on the service's Hide.
        try world.session.startWindowManager(config: X11Session.keyboardsAboveConfig)
        let app = try world.session.start(
            "/usr/bin/python3", [Self.script, "--size", "800x600"],
            environment: world.environment.merging(Self.environment) { $1 })
        defer { print("chat on \(world.session.display) said:\n\(app.log)") }
        try Wait.require("the app to subscribe; it said:\n\(app.log)", timeout: 30) {
            ExampleBar.said(app, "subscribed") || !app.isRunning
        }
        let content = try Self.content(app)
        try ExampleBar.expectBar(app, at: content.maxY, "the window alone")

        // Over the content's bottom 150 rows, left of x 600: the bar shows beside it when pulled
        // under it.
        try world.session.start("xvkbd", ["-geometry", "600x220+0+\(content.maxY - 150)"])
        let keyboard = try world.session.waitForWindow(["--class", "XVkbd"], what: "xvkbd's window")
        let frame = try #require(try world.session.xwininfo(keyboard))
        // In the entry, left of the button: under it, the bar's own colour in its bottom margin.
        let column = content.maxX - 100
        #expect(column >= frame.x + frame.width, "a column beside xvkbd (\(frame)) in the content \(content)")
        let grabber = try ScreenGrabber(displayName: world.session.display)
        defer { grabber.close() }
        let pixels = ExamplePixels.check(column: column) { try grabber.capture() }
        try ExampleBar.expectBar(app, at: frame.y, "xvkbd shown", pixels: pixels)
        let client = try XTestClient.connect(world.session.display)
        let iconified = { client.cardinals(of: Window(keyboard), "WM_STATE")?.first == UInt(IconicState) }

        try Self.drag(client, grabber, column: column, from: content.y + 150, over: frame.y, to: frame.y + 40)
        try Wait.require("dismissal: back; the app said:\n\(app.log)", timeout: 10) {
            ExampleBar.said(app, "dismissal: back")
        }
        try ExampleBar.expectBar(app, at: frame.y, "after an early release", pixels: pixels)
        #expect(!iconified(), "xvkbd stays up after an early release")

        let travel = content.maxY - frame.y
        try Self.drag(
            client, grabber, column: column, from: content.y + 150, over: frame.y, to: frame.y + travel * 3 / 4)
        try Wait.require("dismissal: hide; the app said:\n\(app.log)", timeout: 10) {
            ExampleBar.said(app, "dismissal: hide")
        }
        try Wait.require("xvkbd to be iconified after the release past half", timeout: 10) { iconified() }
        try ExampleBar.expectBar(app, at: content.maxY, "xvkbd dismissed by the drag", pixels: pixels)
        app.signal(SIGTERM)
        #expect(app.waitForExit(timeout: 10) == 0, "the app ends cleanly on SIGTERM")
    }

    @Test(
        "X11: xvkbd moved up in steps the service reports as one slide: the bar follows its progress frames on screen and rests on its end, never a step back"
    )
    func slide() throws {
        guard try Programs.ready(["Xvfb", "xdotool", "xwininfo", "xvkbd", "dbus-daemon"]), try Self.ready()
        else { return }
        let world = try ExampleBar.ServiceWorld()
        defer { world.stop() }
        let app = try world.session.start(
            "/usr/bin/python3", [Self.script, "--size", "800x600"],
            environment: world.environment.merging(Self.environment) { $1 })
        defer { print("chat on \(world.session.display) said:\n\(app.log)") }
        try Wait.require("the app to subscribe; it said:\n\(app.log)", timeout: 30) {
            ExampleBar.said(app, "subscribed") || !app.isRunning
        }
        let content = try Self.content(app)
        let pixels = try ExamplePixels.x11(display: world.session.display, column: content.maxX - 100)
        try world.session.start("xvkbd", ["-geometry", "1280x200+0+500"])
        let keyboard = try world.session.waitForWindow(["--class", "XVkbd"], what: "xvkbd's window")
        try ExampleBar.expectBar(app, at: 500, "xvkbd shown", pixels: pixels)
        try Wait.require("didShow xvkbd; the app said:\n\(app.log)", timeout: 10) {
            ExampleBar.said(app, "didShow xvkbd")
        }
        let mark = ExampleBar.barBottoms(app.log).count
        // Steps closer together than the service's settle interval: one move, its frames between.
        let driver = try XTestClient.connect(world.session.display)
        for y in stride(from: 480, through: 340, by: -20) {
            driver.configure(Window(keyboard), x: 0, y: y)
            Thread.sleep(forTimeInterval: 0.01)
        }
        try ExampleBar.expectBar(app, at: 340, "xvkbd moved up in steps", pixels: pixels)
        Thread.sleep(forTimeInterval: 1)
        let slid = Array(ExampleBar.barBottoms(app.log).dropFirst(mark))
        #expect(ExampleBar.said(app, "willChangeFrame xvkbd") && ExampleBar.said(app, "didChangeFrame xvkbd"))
        #expect(slid.count > 2, "the bar followed the steps, not only the end: \(slid)")
        #expect(zip(slid, slid.dropFirst()).allSatisfy { $0 > $1 }, "only upwards: \(slid)")
        #expect(slid.last == 340, "\(slid)")
    }

    /// Presses at (`column`, `start`), moves down in 10-px steps to `target` and releases. Above
    /// the keyboard's edge (`edge`) the bar must stay on it; below, its bottom edge must be within
    /// 3 px of the pointer on screen.
    static func drag(
        _ client: XTestClient, _ grabber: ScreenGrabber, column: Int, from start: Int, over edge: Int, to target: Int
    ) throws {
        try client.movePointer(x: column, y: start)
        try client.pressButton(1, true)
        var released = false
        defer { if !released { try? client.pressButton(1, false) } }
        for y in stride(from: start + 10, through: target, by: 10) {
            try client.movePointer(x: column, y: y)
            let expected = max(edge, y)
            var end: Int?
            let followed = Wait.until(timeout: 5, interval: 0.02) {
                end = (try? grabber.capture()).flatMap { ExamplePixels.lowestBar(in: $0, column: column)?.end }
                return end.map { abs($0 - expected) <= 3 } ?? false
            }
            #expect(followed, "pointer at \(y): the bar ends at \(end ?? -1) on screen, not near \(expected)")
        }
        try client.pressButton(1, false)
        released = true
    }

    @Test(
        "sway with squeekboard: the bar ends on squeekboard's top edge on screen (its zone shrinks the window), follows it when the output changes, survives the service's restart, drops back on hide"
    )
    func sway() throws {
        guard try Programs.ready(["swaymsg", "dbus-daemon", "dbus-send", "grim"]),
            try Userland.ready(.debian12, ["sway", "squeekboard"]), try Self.ready()
        else { return }
        let world = try ExampleSwayWorld()
        defer { world.stop() }
        #expect(try world.servicePID() == nil, "no service before the app")
        let app = try world.sway.startClient(
            ["/usr/bin/python3", Self.script],
            environment: Self.environment.compactMapValues { $0 }.merging([
                "DBUS_SESSION_BUS_ADDRESS": world.bus.address, "GDK_BACKEND": "wayland",
            ]) { $1 }, asTestUser: false)
        defer { print("chat on sway said:\n\(app.log)") }
        try Wait.require("the app to subscribe; it said:\n\(app.log)", timeout: 30) {
            ExampleBar.said(app, "subscribed") || !app.isRunning
        }
        // Tiled, it fills the output once sway has given it its size.
        let full = Rect(x: 0, y: 0, width: 1280, height: ExampleSwayWorld.outputHeight)
        _ = try Self.content(app) { $0 == full }
        try world.followsSqueekboard(app)
    }
}
