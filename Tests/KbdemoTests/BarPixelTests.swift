import Foundation
import KeyboardAdapter
import TestSupport
import Testing

@testable import kbdemo

/// The proof a person would accept: screen captures of kbdemo under Xvfb + openbox with a real
/// on-screen keyboard over the window's bottom. The bar's rows must end exactly on the keyboard
/// frame's top edge (from `xwininfo -id` of the keyboard's client window), with no bar pixel
/// under the keyboard, and be back at the window's bottom once the keyboard hides.
@Suite("kbdemo: the input bar on a real keyboard, in pixels")
struct BarPixelTests {
    @Test("xvkbd: shown over the bottom, moved, window moved and resized, hidden")
    func xvkbd() throws {
        guard let world = try DemoWorld.make(keyboard: "xvkbd") else { return }
        try world.expectBar(keyboard: nil, "window alone")
        let app = try world.frame(of: world.window)

        // Covers the window's bottom 150 rows, over the whole width of the screen.
        try world.session.start("xvkbd", ["-geometry", "1280x220+0+\(app.maxY - 150)"])
        let keyboard = try world.findWindow(["--class", "XVkbd"], what: "xvkbd's window")
        try world.expectBar(keyboard: keyboard, "xvkbd shown")

        try world.session.xdotool("windowmove", String(keyboard), "0", String(app.maxY - 260))
        try world.expectBar(keyboard: keyboard, "xvkbd moved up")

        // The window moves up by 40 px: it is covered less, the bar must still end on the keyboard.
        try world.session.xdotool("windowmove", String(world.window), "240", "0")
        try world.expectBar(keyboard: keyboard, "window moved up")

        // Smaller: the keyboard covers less of it again; the bar follows the new bottom edge.
        try world.session.xdotool("windowsize", String(world.window), "700", "500")
        try world.expectBar(keyboard: keyboard, "window resized")

        try world.session.xdotool("windowunmap", String(keyboard))
        try world.expectBar(keyboard: nil, "xvkbd hidden")
        #expect(world.quitDemo() == 0, "kbdemo ends cleanly on SIGTERM")
    }

    @Test("matchbox-keyboard: shown over the bottom, idle, hidden")
    func matchbox() throws {
        guard let world = try DemoWorld.make(keyboard: "matchbox-keyboard") else { return }
        try world.expectBar(keyboard: nil, "window alone")
        let app = try world.frame(of: world.window)

        try world.session.start("matchbox-keyboard")
        let keyboard = try world.findWindow(["--name", "^Keyboard$"], what: "matchbox-keyboard's window")
        try world.session.xdotool("windowsize", String(keyboard), "1280", "240")
        try world.session.xdotool("windowmove", String(keyboard), "0", String(app.maxY - 180))
        try world.expectBar(keyboard: keyboard, "matchbox-keyboard shown")
        // A loop that polls would use about 200 ticks in 2 s; a sleeping one none. A few ticks of
        // slack cover a late redraw on a loaded machine.
        let busy = try world.demoCPUTicks(over: 2)
        #expect(busy <= 4, "kbdemo used \(busy) CPU ticks in 2 s while nothing happened; it should sleep in poll()")

        try world.session.xdotool("windowunmap", String(keyboard))
        try world.expectBar(keyboard: nil, "matchbox-keyboard hidden")
        #expect(world.quitDemo() == 0, "kbdemo ends cleanly on SIGTERM")
    }
}
