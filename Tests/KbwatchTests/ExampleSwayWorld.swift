import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing

/// A phone's session for the chat examples on Wayland: headless sway from Debian 12 with one
/// 1280x800 output and no window decorations (a chat screen there fills the output, tiled),
/// squeekboard on a private session bus, and on that bus the session service as an installed
/// kbwatch has it, started by the bus on the first call (`kbwatch --serve --idle-exit 5`).
/// squeekboard's zone shrinks the app's window, so its bar ends on squeekboard's top edge when
/// the window's does.
final class ExampleSwayWorld {
    let sway: HeadlessSway
    let bus: SessionBus
    let squeekboard: ChildProcess
    /// What the app and the tools need to reach sway and the bus.
    let environment: [String: String?]
    /// The output's height: where a window's bottom is with no keyboard up.
    static let outputHeight = 800

    init() throws {
        sway = try HeadlessSway(extraConfig: "default_border none\ndefault_floating_border none\n")
        let services = sway.runtime.path + "/services"
        do {
            try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
            try "[D-BUS Service]\nName=\(ExampleBar.service)\nExec=\(Kbwatch.path) --serve --idle-exit 5\n".write(
                toFile: services + "/\(ExampleBar.service).service", atomically: true, encoding: .utf8)
            bus = try SessionBus(directory: sway.runtime.path, home: sway.runtime.home, serviceDirectory: services)
        } catch {
            sway.stop()
            throw error
        }
        let wayland = [
            "WAYLAND_DISPLAY": sway.socket, "XDG_RUNTIME_DIR": sway.runtime.xdg, "XDG_SESSION_TYPE": "wayland",
            "SWAYSOCK": sway.ipcSocket ?? "",
        ]
        do {
            try bus.setActivationEnvironment(wayland)
            squeekboard = try sway.startClient(
                ["squeekboard"],
                environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "GDK_BACKEND": "wayland", "NO_AT_BRIDGE": "1"],
                asTestUser: false)
            try bus.waitForName("sm.puri.OSK0")
        } catch {
            bus.stop()
            sway.stop()
            throw error
        }
        environment = sway.clientEnvironment.merging(
            ["DBUS_SESSION_BUS_ADDRESS": bus.address, "XDG_SESSION_TYPE": "wayland", "KEYBOARD_ADAPTER_BACKEND": nil]
        ) { $1 }
    }

    func stop() {
        squeekboard.stop()
        bus.stop()
        sway.stop()
    }

    /// The pid of the service's process, from the bus; nil while nobody owns the name.
    func servicePID() throws -> Int32? {
        try bus.hasOwner(ExampleBar.service) ? bus.pid(of: ExampleBar.service) : nil
    }

    /// Asks squeekboard to show or hide, and returns the top edge of what it then reserves at the
    /// output's bottom (the output's height once hidden), once sway has placed it.
    @discardableResult
    func setVisible(_ visible: Bool) throws -> Int {
        try bus.call("sm.puri.OSK0", "/sm/puri/OSK0", "sm.puri.OSK0.SetVisible", ["boolean:\(visible)"])
        var top = 0
        try Wait.require("squeekboard's zone to be \(visible ? "in place" : "gone")", timeout: 10) {
            guard let height = try? workspaceHeight() else { return false }
            top = height
            return visible ? height < Self.outputHeight : height == Self.outputHeight
        }
        return top
    }

    /// The height of sway's workspace: the output's, less what a layer surface reserves.
    func workspaceHeight() throws -> Int? {
        let output = try sway.message(["-t", "get_workspaces"])
        guard let list = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]],
            let rect = list.first?["rect"] as? [String: Any]
        else { return nil }
        return rect["height"] as? Int
    }

    /// A check of the screen from grim's screenshots (wlr-screencopy), in `column`.
    func pixels(column: Int) -> ExampleBar.PixelCheck {
        let path = sway.runtime.path + "/screen.ppm"
        let environment = self.environment
        return ExamplePixels.check(column: column) {
            let result = try Programs.run("grim", ["-t", "ppm", path], environment: environment)
            guard result.status == 0 else { throw TestFailure("grim failed: \(result.output)") }
            guard let image = ExamplePixels.ppm(try Data(contentsOf: URL(fileURLWithPath: path))) else {
                throw TestFailure("grim wrote no binary PPM to \(path)")
            }
            return image
        }
    }

    /// The checks of a chat example on this sway: `app` has subscribed (its `Subscribe` started
    /// the service) and its window fills the output. Its bar must end on squeekboard's top edge
    /// on screen once shown, follow it when the output gets narrower (squeekboard lays itself out
    /// again), stay there when the service is killed and the bus starts a new one for the app's
    /// next `Subscribe`, drop back on hide; SIGTERM ends the app cleanly, and the service, left
    /// without subscribers, ends once idle. Screenshots are read in the output's middle column.
    func followsSqueekboard(_ app: ChildProcess) throws {
        let first = try #require(try servicePID(), "the app's Subscribe started the service")
        let pixels = pixels(column: 1280 / 2)
        try ExampleBar.expectBar(app, at: Self.outputHeight, "the window alone", pixels: pixels)

        let top = try setVisible(true)
        try ExampleBar.expectBar(app, at: top, "squeekboard shown", pixels: pixels)
        try Wait.require("didShow; the app said:\n\(app.log)", timeout: 10) {
            ExampleBar.said(app, "didShow squeekboard")
        }
        #expect(ExampleBar.said(app, "willShow squeekboard"))

        try sway.message(["output", "HEADLESS-1", "mode", "1024x800"])
        var moved = top
        try Wait.require("squeekboard's top edge to move from \(top)", timeout: 30) {
            moved = (try? workspaceHeight()).flatMap { $0 } ?? top
            return moved != top
        }
        let narrow = self.pixels(column: 1024 / 2)
        try ExampleBar.expectBar(app, at: moved, "the output narrower", pixels: narrow)

        kill(first, SIGKILL)
        try Wait.require("the app to subscribe again; it said:\n\(app.log)", timeout: 30) {
            ExampleBar.times(app, said: "subscribed") == 2 || !app.isRunning
        }
        #expect(ExampleBar.said(app, "service gone"))
        // The new service names squeekboard in its state, or, when it learns of it only after
        // answering (squeekboard's own service read in the meantime), in a show.
        try Wait.require("the new service to name squeekboard; the app said:\n\(app.log)", timeout: 10) {
            let since = ExampleBar.printed(app, since: "subscribed")
            return since.contains("visible squeekboard") || since.contains("didShow squeekboard")
        }
        let second = try #require(try servicePID())
        #expect(second != first, "a new service")
        try ExampleBar.expectBar(app, at: moved, "squeekboard, from the new service", pixels: narrow)

        try setVisible(false)
        try ExampleBar.expectBar(app, at: Self.outputHeight, "squeekboard hidden", pixels: narrow)
        #expect(ExampleBar.said(app, "willHide squeekboard") && ExampleBar.said(app, "didHide squeekboard"))

        app.signal(SIGTERM)
        #expect(app.waitForExit(timeout: 10) == 0, "the app ends cleanly on SIGTERM")
        try Wait.require("the service to end once idle (idle exit 5 s) after its subscriber left", timeout: 20) {
            (try? bus.hasOwner(ExampleBar.service)) == false
        }
    }
}
