import Foundation
import TestSupport
import Testing

/// The GJS example (`Examples/gjs/bar.js`, GTK 4 on libkeyboard-adapter and its GTK 4 companion,
/// built by `KeyboardAdapterLibrary`), fed by the session service the bus starts, on Xvfb with
/// xvkbd: the inset it prints and its bar on screen end on xvkbd's top edge as `xwininfo` reports
/// it, through a move and the service's restart, and drop back when xvkbd hides.
@Suite("GJS example: bar")
struct GJSExampleTests {
    static let script = SchemaValidator.repository.appendingPathComponent("Examples/gjs/bar.js").path

    @Test(
        "the bus starts the service for it; the bar ends on xvkbd's top edge on screen, follows a move, survives the service's restart, drops back on hide"
    )
    func followsXvkbd() throws {
        guard try Programs.ready(["gjs", "Xvfb", "xdotool", "xwininfo", "xvkbd", "dbus-daemon", "dbus-send"]),
            try KeyboardAdapterLibrary.gtk4Ready()
        else { return }
        let world = try ExampleBar.ServiceWorld()
        defer { world.stop() }
        #expect(try world.servicePID() == nil, "no service before the app")
        let app = try world.session.start(
            "gjs", [Self.script],
            environment: world.environment.merging(KeyboardAdapterLibrary.environment) { $1 }.merging([
                "GSK_RENDERER": "cairo", "NO_AT_BRIDGE": "1",
            ]) { $1 })
        defer { print("bar.js on \(world.session.display) said:\n\(app.log)") }
        func insets() -> [String] { app.log.split(separator: "\n").map(String.init).filter { $0.hasPrefix("inset ") } }
        func expectInset(_ inset: Int, _ step: String, pixels: ExampleBar.PixelCheck, bottom: Int) throws {
            try Wait.require("inset \(inset) (\(step)); the app said:\n\(app.log)", timeout: 15) {
                insets().last == "inset \(inset)" || !app.isRunning
            }
            try pixels(bottom - inset, step)
        }

        // Its content on screen: its X window's place (no window manager) and where GTK lays the
        // content out in it.
        var window: UInt = 0
        var offset = (x: 0, y: 0, width: 0, height: 0)
        try Wait.require("its window and content; it said:\n\(app.log)", timeout: 30) {
            for line in app.log.split(separator: "\n") {
                if let match = line.wholeMatch(of: /window 0x([0-9a-f]+)/) { window = UInt(match.1, radix: 16) ?? 0 }
                if let match = line.wholeMatch(of: /content (\d+),(\d+) (\d+)x(\d+)/) {
                    offset = (Int(match.1)!, Int(match.2)!, Int(match.3)!, Int(match.4)!)
                }
            }
            return window != 0 && offset.width > 0 || !app.isRunning
        }
        let placed = try #require(try world.session.xwininfo(window))
        let bottom = placed.y + offset.y + offset.height
        let pixels = try ExamplePixels.x11(display: world.session.display, column: placed.x + offset.x + 700)
        try Wait.require("the app to subscribe; it said:\n\(app.log)", timeout: 30) {
            ExampleBar.said(app, "subscribed") || !app.isRunning
        }
        let first = try #require(try world.servicePID(), "its Watcher started the service")
        try expectInset(0, "the window alone", pixels: pixels, bottom: bottom)

        try world.session.start("xvkbd", ["-geometry", "600x220+0+\(bottom - 150)"])
        let keyboard = try world.session.waitForWindow(["--class", "XVkbd"], what: "xvkbd's window")
        let shown = try #require(try world.session.xwininfo(keyboard))
        try expectInset(bottom - shown.y, "xvkbd shown", pixels: pixels, bottom: bottom)
        #expect(ExampleBar.said(app, "willShow xvkbd"))

        try world.session.xdotool("windowmove", String(keyboard), "0", String(bottom - 250))
        let moved = try #require(try world.session.xwininfo(keyboard))
        try expectInset(bottom - moved.y, "xvkbd moved up", pixels: pixels, bottom: bottom)

        kill(first, SIGKILL)
        try Wait.require("the app to subscribe again; it said:\n\(app.log)", timeout: 30) {
            ExampleBar.times(app, said: "subscribed") == 2 || !app.isRunning
        }
        #expect(ExampleBar.said(app, "service gone"))
        #expect(try world.servicePID() != first, "a new service")
        try expectInset(bottom - moved.y, "xvkbd, from the new service", pixels: pixels, bottom: bottom)

        try world.session.xdotool("windowunmap", String(keyboard))
        try expectInset(0, "xvkbd hidden", pixels: pixels, bottom: bottom)
        #expect(ExampleBar.said(app, "didHide xvkbd"))
        app.signal(SIGTERM)
        #expect(app.waitForExit(timeout: 10) == 0, "the app ends cleanly on SIGTERM")
    }
}
