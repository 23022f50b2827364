import Foundation
import KeyboardAdapterCore
import KeyboardServices
import TestSupport
import Testing
import WaylandAdapter

extension WaylandIntegration {
    /// Phosh's own keyboard in Debian 13 (phosh-osk-stub 0.46, not in Debian 12) on phoc 0.46
    /// nested in headless sway: it serves squeekboard's `sm.puri.OSK0` and reserves a 200 px strip
    /// at the bottom; a backend joined with that service and kbwatch both follow it through it.
    @Suite("phosh-osk-stub on phoc nested in sway (Debian 13)")
    struct PhoshOskStubTests {
        static let output = PhocTests.output
        static let strip = Rect(x: 0, y: 600, width: 1280, height: 200)

        @Test("SetVisible shows, hides, shows its strip; kbwatch --state, --hide and --show through its service")
        func setVisible() throws {
            guard try Programs.ready(["dbus-daemon", "dbus-send", "gsettings"]),
                try Userland.ready(.debian13, ["sway", "phoc", "phosh-osk-stub", "wvkbd-mobintl"])
            else { return }
            let phoc = try NestedPhoc(stack: .debian13)
            defer { phoc.stop() }
            let stub = try phoc.launch("phosh-osk-stub", [])
            try phoc.bus.waitForName("sm.puri.OSK0")

            let sink = TrackingSink(backendName: "wayland")
            let service = DBusKeyboardService.squeekboard(environment: phoc.environment.compactMapValues { $0 })
            let backend = WaylandBackend(display: phoc.socket, services: [service], environment: [:])
            let watching = try BackendLoop(backend, sink: sink)
            defer { watching.stop() }
            try Fixture.waitForUsableArea(backend, Self.output.name, Self.output.frame)
            #expect(service.state.isRunning && service.state.pid == stub.pid, "\(service.state)")

            let bus = phoc.bus
            func setVisible(_ visible: Bool) throws {
                try bus.call("sm.puri.OSK0", "/sm/puri/OSK0", "sm.puri.OSK0.SetVisible", ["boolean:\(visible)"])
            }
            let kbwatch: [String: String?] = [
                "WAYLAND_DISPLAY": phoc.socket, "XDG_RUNTIME_DIR": phoc.runtime.xdg, "DISPLAY": nil,
                "SWAYSOCK": nil, "DBUS_SESSION_BUS_ADDRESS": bus.address, "XDG_SESSION_TYPE": "wayland",
                "KEYBOARD_ADAPTER_BACKEND": nil,
            ]
            try setVisible(true)
            try sink.waitForUpdates(2, "phosh-osk-stub shown")
            let shown = try Kbwatch.run(["--state", "--json"], environment: kbwatch)
            #expect(shown.status == 0, "kbwatch --state: \(shown.stderr)")
            // Up when kbwatch starts, with no bar: the whole inset, which is the strip.
            let keyboard = try Self.onlyKeyboard(shown.stdout)
            #expect(keyboard.name == "phosh-osk-stub", "\(shown.stdout)")
            #expect(keyboard.pid == Int(stub.pid) && keyboard.frame == Self.strip, "\(shown.stdout)")
            try setVisible(false)
            try sink.waitForUpdates(4, "phosh-osk-stub hidden")
            let hidden = try Kbwatch.run(["--state", "--json"], environment: kbwatch)
            #expect(hidden.status == 1, "kbwatch --state: \(hidden.stdout) \(hidden.stderr)")
            try setVisible(true)
            try sink.waitForUpdates(6, "phosh-osk-stub shown again")

            let hide = try Kbwatch.run(["--hide"], environment: kbwatch)
            #expect(hide.status == 0, "kbwatch --hide: \(hide.stderr)")
            try sink.waitForUpdates(8, "phosh-osk-stub hidden by kbwatch --hide")
            try Wait.require("phosh-osk-stub to say it is hidden (\(service.state))", timeout: 5) {
                service.state.isVisible == false
            }
            let show = try Kbwatch.run(["--show"], environment: kbwatch)
            #expect(show.status == 0, "kbwatch --show: \(show.stderr)")
            try sink.waitForUpdates(10, "phosh-osk-stub shown by kbwatch --show")
            try Wait.require("phosh-osk-stub to say it is visible (\(service.state))", timeout: 5) {
                service.state.isVisible == true
            }

            // Its virtual keyboard gives the seat an English (US) keymap as it starts.
            let cycle = Fixture.showHide(
                id: "wayland:WL-1:bottom", frame: Self.strip, offScreen: Rect(x: 0, y: 800, width: 1280, height: 200),
                edge: .bottom, output: Self.output, layout: "English (US)")
            #expect(Fixture.lines(sink.updates) == cycle + cycle + cycle.prefix(2), "\(describe(sink.updates))")
            // Named after the program that owns sm.puri.OSK0, not the interface's squeekboard.
            #expect(
                sink.updates.allSatisfy { $0.keyboard.name == "phosh-osk-stub" && $0.keyboard.pid == stub.pid },
                "\(describe(sink.updates))")
            #expect(sink.failures.isEmpty)
        }

        /// The one keyboard of `kbwatch --state --json`: its name, pid and frame.
        static func onlyKeyboard(_ json: String) throws -> (name: String?, pid: Int?, frame: Rect?) {
            let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
            let keyboards = object?["keyboards"] as? [[String: Any]] ?? []
            guard keyboards.count == 1, let entry = keyboards.first else {
                throw TestFailure("expected one keyboard: \(json)")
            }
            let identity = entry["keyboard"] as? [String: Any]
            let frame = (entry["frame"] as? [String: Int]).flatMap { f -> Rect? in
                guard let x = f["x"], let y = f["y"], let width = f["width"], let height = f["height"] else {
                    return nil
                }
                return Rect(x: x, y: y, width: width, height: height)
            }
            return (identity?["name"] as? String, identity?["pid"] as? Int, frame)
        }
    }
}
