import Foundation
import KeyboardAdapter
import ScreenCapture
import TestSupport
import Testing

@testable import kbdemo

/// xvkbd with openbox's own decorations, as a desktop shows it: a title bar above its window, a
/// handle below, borders at the sides. The frame the library reports must be what covers the
/// app, openbox's frame included (`xwininfo` of the frame window around xvkbd's client window),
/// and kbdemo's bar must end above the title bar, not on xvkbd's own window under it.
@Suite("kbdemo: the input bar above a keyboard's title bar, in pixels")
struct DecoratedKeyboardTests {
    @Test(
        "xvkbd decorated by openbox: the frame reported covers the title bar; the bar ends above it, also after a move")
    func decoratedXvkbd() throws {
        guard let world = try DemoWorld.make(keyboard: "xvkbd", decorated: true) else { return }
        try world.expectBar(keyboard: nil, "window alone")
        let app = try world.frame(of: world.window)

        // Covers the window's bottom 150 rows, over the whole width of the screen.
        try world.session.start("xvkbd", ["-geometry", "1280x220+0+\(app.maxY - 150)"])
        let keyboard = try world.findWindow(["--class", "XVkbd"], what: "xvkbd's window")
        let image = try world.expectBar(keyboard: keyboard, decorated: true, "decorated xvkbd shown")

        // Openbox frames xvkbd: its title bar lies between the frame's top edge and the client's.
        let covered = try world.covered(by: keyboard)
        let client = try world.frame(of: keyboard)
        let titleBar = client.y - covered.y
        print("xvkbd's client window \(client), openbox's frame \(covered): title bar \(titleBar) px")
        #expect(titleBar > 0, "openbox drew no title bar above xvkbd: frame \(covered), window \(client)")

        // What kbdemo was told: the frame with the title bar, not xvkbd's own window.
        try world.waitForLines("didShow", count: 1)
        let shown = world.demo.log.split(separator: "\n").last { $0.hasPrefix("kbdemo: didShow ") }
        #expect(shown?.hasPrefix("kbdemo: didShow xvkbd \(covered) ") == true, "\(shown ?? "no didShow line")")

        // The bar's last row is above the title bar's first, in both margin columns.
        if let image {
            let margin = BarMetrics.fieldMargin / 3
            for x in [app.x + margin, app.maxX - 1 - margin] {
                let runs = BarInspection.runs(in: image, column: x, from: app.y, to: app.maxY, color: Palette.bar)
                // Whole (the title bar, above the app, would hide the rows of a bar that reached
                // into it), and ending above the title bar.
                let run = try #require(runs.last, "no bar in column \(x)")
                print("column \(x): the bar's rows \(run), the title bar's first row \(covered.y)")
                #expect(runs.count == 1 && run.count == BarMetrics.height, "column \(x): the bar's rows \(runs)")
                #expect(run.upperBound <= covered.y, "column \(x): the bar ends at row \(run.upperBound - 1)")
            }
            try? PNGEncoder.write(image, to: world.session.directory + "/decorated-xvkbd.png")
        }

        // kbwatch says the same: the frame covers the title bar, xvkbd's window is beside it.
        let state = try Kbwatch.run(["--state", "--json", "--backend", "x11"], environment: world.session.environment)
        #expect(state.status == 0, "\(state.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(state.stdout.utf8)) as? [String: Any])
        let reported = try #require((object["keyboards"] as? [[String: Any]])?.first)
        func rect(_ value: Any?) -> Rect? {
            guard let fields = value as? [String: Int], let x = fields["x"], let y = fields["y"],
                let width = fields["width"], let height = fields["height"]
            else { return nil }
            return Rect(x: x, y: y, width: width, height: height)
        }
        #expect(rect(reported["frame"]) == covered && rect(reported["windowFrame"]) == client, "\(state.stdout)")

        // Moved up by openbox (the frame moves with its client): the bar follows the frame's top.
        try world.session.xdotool("windowmove", String(keyboard), "0", String(app.maxY - 260))
        try world.expectBar(keyboard: keyboard, decorated: true, "decorated xvkbd moved up")

        try world.session.xdotool("windowunmap", String(keyboard))
        try world.expectBar(keyboard: nil, "decorated xvkbd hidden")
        #expect(world.quitDemo() == 0, "kbdemo ends cleanly on SIGTERM")
    }
}
