import CX11
import Foundation
import KeyboardAdapter
import ScreenCapture
import TestSupport
import Testing

@testable import kbdemo

/// The chat-app dismissal with a real keyboard, in pixels: the pointer (XTest: a press, motion in
/// steps with the button held, a release) drags kbdemo's text down across the keyboard, and each
/// capture shows the bar's bottom edge at the pointer; released past half the keyboard, the
/// keyboard hides and the bar is back at the window's bottom; released early, the keyboard stays
/// and the bar is back on its top edge; a tap in the text hides it too.
///
/// The keyboard covers only part of the window's width, so that the bar, pulled down under the
/// keyboard's window (which it never moves), can still be seen beside it.
@Suite("kbdemo: dragging the keyboard away, in pixels")
struct DismissalPixelTests {
    /// The keyboard under test: its window, how the test tells it hid, how it comes back.
    struct Keyboard {
        let name: String
        let window: UInt
        /// How kbdemo says it will hide it (`dismissal: through onboard`).
        let route: String
        let isHidden: () -> Bool
        let show: () throws -> Void
    }

    @Test("xvkbd: dragged early and released, dragged past half, shown again and tapped away")
    func xvkbd() throws {
        guard let world = try DemoWorld.make(keyboard: "xvkbd") else { return }
        try world.expectBar(keyboard: nil, "window alone")
        let app = try world.frame(of: world.window)
        // 600 px wide at the screen's left: over the window's bottom 150 rows, left of x 600.
        try world.session.start("xvkbd", ["-geometry", "600x220+0+\(app.maxY - 150)"])
        let id = try world.findWindow(["--class", "XVkbd"], what: "xvkbd's window")
        let client = try XTestClient.connect(world.session.display)
        let keyboard = Keyboard(
            name: "xvkbd", window: id, route: "through the display server",
            // The window manager iconifies it: WM_STATE 3 (IconicState).
            isHidden: { client.cardinals(of: Window(id), "WM_STATE")?.first == UInt(IconicState) },
            show: { try world.session.xdotool("windowmap", String(id)) })
        try world.expectBar(keyboard: id, "xvkbd shown")
        try Self.dismissals(world, keyboard, client)
        #expect(world.quitDemo() == 0)
    }

    @Test("onboard docked at the bottom: the same, hidden and shown through its service")
    func onboard() throws {
        var started: Onboard?
        defer { started?.stop() }
        let narrow: [Onboard.Setting] =
            Onboard.dockedBottom + [
                ("org.onboard.window.landscape", "dock-expand", "false"),
                ("org.onboard.window.landscape", "dock-width", "600"),
            ]
        let programs = ["onboard", "dbus-run-session", "dbus-send", "gsettings"]
        // onboard first, so that kbdemo shares its session bus and hides it through its service.
        guard
            let world = try DemoWorld.make(
                keyboard: "onboard", programs: programs, position: "240,180",
                prepare: { session in
                    let onboard = try Onboard(on: session, settings: narrow)
                    started = onboard
                    return ["DBUS_SESSION_BUS_ADDRESS": onboard.busAddress]
                })
        else { return }
        let onboard = try #require(started)
        try world.waitForLines("didShow onboard", count: 1, timeout: 20)
        let id = try world.findWindow(["--pid", String(onboard.pid)], what: "onboard's window")
        let client = try XTestClient.connect(world.session.display)
        let keyboard = Keyboard(
            name: "onboard", window: id, route: "through onboard", isHidden: { onboard.visible() == false },
            show: { try onboard.call("Show") })
        try world.expectBar(keyboard: id, "onboard shown")
        try Self.dismissals(world, keyboard, client)
        #expect(world.quitDemo() == 0)
    }

    /// An early release, a release past half, the keyboard shown again, a tap.
    static func dismissals(_ world: DemoWorld, _ keyboard: Keyboard, _ client: XTestClient) throws {
        try drag(world, keyboard, client, to: 0.3, "\(keyboard.name) early")
        try world.waitForLines("dismissal: \(keyboard.route)", count: 1)
        try world.waitForLines("dismissal: restore", count: 1)
        try world.expectBar(keyboard: keyboard.window, "\(keyboard.name) after an early release")
        #expect(!keyboard.isHidden(), "\(keyboard.name) stays up after an early release")

        try drag(world, keyboard, client, to: 0.75, "\(keyboard.name) past half")
        try world.waitForLines("dismissal: distance", count: 1)
        try Wait.require("\(keyboard.name) to hide after the release past half", timeout: 10) { keyboard.isHidden() }
        try world.expectBar(keyboard: nil, "\(keyboard.name) dismissed by the drag")

        // As SlidePixelTests do, a pause between a hide and the next request.
        Thread.sleep(forTimeInterval: 0.5)
        try keyboard.show()
        try Wait.require("\(keyboard.name) to show again", timeout: 10) { !keyboard.isHidden() }
        try world.expectBar(keyboard: keyboard.window, "\(keyboard.name) shown again")
        let app = try world.frame(of: world.window)
        try client.movePointer(x: app.maxX - 100, y: app.y + 150)
        try client.pressButton(1, true)
        try client.pressButton(1, false)
        try world.waitForLines("dismissal: tap", count: 1)
        try Wait.require("\(keyboard.name) to hide after a tap", timeout: 10) { keyboard.isHidden() }
        try world.expectBar(keyboard: nil, "\(keyboard.name) dismissed by a tap")
    }

    /// Presses in the text, moves down in 10-px steps (a pause at each until the bar is drawn)
    /// to `fraction` of the keyboard's height over the window, and releases. Above the keyboard's
    /// edge the bar must stay on it; below, its bottom edge must be within 3 px of the pointer.
    static func drag(
        _ world: DemoWorld, _ keyboard: Keyboard, _ client: XTestClient, to fraction: Double, _ step: String
    ) throws {
        let app = try world.frame(of: world.window)
        let frame = try world.frame(of: keyboard.window)
        // A column of the window the keyboard does not cover, where the bar shows under it.
        let column = try #require(
            [app.maxX - BarMetrics.fieldMargin / 3, app.x + BarMetrics.fieldMargin / 3].first {
                $0 < frame.x || $0 >= frame.maxX
            }, "\(keyboard.name) at \(frame) covers the whole width of the window \(app)")
        let travel = min(frame.maxY, app.maxY) - frame.y
        let target = frame.y + Int((Double(travel) * fraction).rounded())
        try client.movePointer(x: column, y: app.y + 150)
        try client.pressButton(1, true)
        var released = false
        defer { if !released { try? client.pressButton(1, false) } }

        for y in [frame.y - 60, frame.y - 5] {
            try client.movePointer(x: column, y: y)
            Thread.sleep(forTimeInterval: 0.2)
            let end = barEnd(try world.grabber.capture(), column: column, window: app)
            #expect(
                end == frame.y,
                "\(step): pointer at \(y), above the keyboard's edge \(frame.y): bar ends at \(end ?? -1)")
        }
        var last: RGBImage?
        for y in stride(from: frame.y + 10, through: target, by: 10) {
            try client.movePointer(x: column, y: y)
            var end: Int?
            let followed = Wait.until(timeout: 5, interval: 0.02) {
                guard let image = try? world.grabber.capture() else { return false }
                last = image
                end = barEnd(image, column: column, window: app)
                return end.map { abs($0 - y) <= 3 } ?? false
            }
            #expect(followed, "\(step): pointer at \(y): the bar ends at \(end ?? -1), not at the pointer")
        }
        let path = try ScratchDirectory.path(
            "kbdemo-dismissal-" + step.replacingOccurrences(of: " ", with: "-") + ".png")
        if let last {
            try PNGEncoder.write(last, to: path)
            print("\(step): the drag at \(target) (\(fraction) of the keyboard): \(path)")
        }
        // Held still for a moment, then lifted: the distance decides, not the speed.
        Thread.sleep(forTimeInterval: 0.2)
        try client.pressButton(1, false)
        released = true
    }

    /// The row after the bar's last row in `column` (the bar is the only run of its colour).
    static func barEnd(_ image: RGBImage, column: Int, window: Rect) -> Int? {
        let runs = BarInspection.runs(in: image, column: column, from: window.y, to: window.maxY, color: Palette.bar)
        return runs.count == 1 ? runs[0].upperBound : nil
    }
}
