import Foundation
import KeyboardAdapterCore
import KeyboardServices
import TestSupport
import Testing
import WaylandAdapter

extension WaylandIntegration {
    /// Phosh's own keyboard (not in Debian 12): phosh-osk-stub 0.46 on phoc 0.46 (Debian 13), and
    /// its successor Stevia, phosh-osk-stevia 0.58 on phoc 0.58 (forky), nested in headless sway:
    /// each serves squeekboard's `sm.puri.OSK0` and reserves a 200 px strip at the bottom; a backend
    /// joined with that service and kbwatch both follow it through it, and name it after itself.
    @Suite("Phosh's own keyboard on phoc nested in sway")
    struct PhoshOskStubTests {
        static let output = PhocTests.output
        static let strip = Rect(x: 0, y: 600, width: 1280, height: 200)

        /// Phosh's keyboard on `stack`.
        static func keyboard(on stack: Stack) -> String { stack == .debian13 ? "phosh-osk-stub" : "phosh-osk-stevia" }

        @Test(
            "SetVisible shows, hides, shows its strip; kbwatch --state, --hide and --show through its service; a stranger's signals change nothing",
            arguments: Stack.newerWlroots)
        func setVisible(stack: Stack) throws {
            let name = Self.keyboard(on: stack)
            guard try Programs.ready(["dbus-daemon", "dbus-send", "gsettings"]),
                try Userland.ready(stack, ["sway", "phoc", name, "wvkbd-mobintl"])
            else { return }
            let phoc = try NestedPhoc(stack: stack)
            defer { phoc.stop() }
            let stub = try phoc.launch(name, [])
            try phoc.bus.waitForName("sm.puri.OSK0")
            if stack != .debian13 {
                // Stevia starts by sliding its new surface out of sight and ends that slide by a
                // timer 1 to 2 s later, as frames of a surface out of sight never come headless; a
                // SetVisible before the timer cancels it and leaves the keyboard off screen for good
                // (its Visible says true, no strip is reserved). A person's first tap comes later.
                _ = Wait.until(timeout: 5) { stub.log.contains("Animation did not finish in time") }
            }

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
            do {
                try sink.waitForUpdates(2, "\(name) shown")
            } catch {
                throw TestFailure("\(error); \(name)'s log:\n\(stub.log.suffix(3000))")
            }
            let shown = try Kbwatch.run(["--state", "--json"], environment: kbwatch)
            #expect(shown.status == 0, "kbwatch --state: \(shown.stderr)")
            // Up when kbwatch starts, with no bar: the whole inset, which is the strip.
            let keyboard = try Self.onlyKeyboard(shown.stdout)
            #expect(keyboard.name == name, "\(shown.stdout)")
            #expect(keyboard.pid == Int(stub.pid) && keyboard.frame == Self.strip, "\(shown.stdout)")
            // The services entry and --doctor name the program serving sm.puri.OSK0 too.
            #expect(shown.stdout.contains(#""name":"squeekboard","keyboard":"\#(name)""#), "\(shown.stdout)")
            let doctor = try Kbwatch.run(["--doctor"], environment: kbwatch)
            #expect(doctor.stdout.contains("pid \(stub.pid), served by \(name)"), "\(doctor.stdout)")
            try setVisible(false)
            try sink.waitForUpdates(4, "\(name) hidden")
            let hidden = try Kbwatch.run(["--state", "--json"], environment: kbwatch)
            #expect(hidden.status == 1, "kbwatch --state: \(hidden.stdout) \(hidden.stderr)")
            // A stranger speaking for the keyboard, addressed to this process's connections: its
            // Visible, the name lost, the name taken. None is believed.
            let visible = ForgedSignals.Signal.propertyTrue(
                path: "/sm/puri/OSK0", interface: "sm.puri.OSK0", property: "Visible")
            for signal in [visible, .nameLost("sm.puri.OSK0"), .nameTaken("sm.puri.OSK0"), visible] {
                #expect(try ForgedSignals.send(signal, toConnectionsOf: getpid(), bus: bus.address) >= 1)
            }
            Thread.sleep(forTimeInterval: 0.5)
            #expect(sink.updates.count == 4, "\(describe(sink.updates))")
            #expect(
                service.state.isRunning && service.state.isVisible == false && service.state.pid == stub.pid,
                "\(service.state)")
            try setVisible(true)
            try sink.waitForUpdates(6, "\(name) shown again")

            let hide = try Kbwatch.run(["--hide"], environment: kbwatch)
            #expect(hide.status == 0, "kbwatch --hide: \(hide.stderr)")
            try sink.waitForUpdates(8, "\(name) hidden by kbwatch --hide")
            try Wait.require("\(name) to say it is hidden (\(service.state))", timeout: 5) {
                service.state.isVisible == false
            }
            let show = try Kbwatch.run(["--show"], environment: kbwatch)
            #expect(show.status == 0, "kbwatch --show: \(show.stderr)")
            try sink.waitForUpdates(10, "\(name) shown by kbwatch --show")
            try Wait.require("\(name) to say it is visible (\(service.state))", timeout: 5) {
                service.state.isVisible == true
            }

            // Its virtual keyboard gives the seat an English (US) keymap as it starts.
            let cycle = Fixture.showHide(
                id: "wayland:WL-1:bottom", frame: Self.strip, offScreen: Rect(x: 0, y: 800, width: 1280, height: 200),
                edge: .bottom, output: Self.output, layout: "English (US)")
            #expect(Fixture.lines(sink.updates) == cycle + cycle + cycle.prefix(2), "\(describe(sink.updates))")
            // Named after the program that owns sm.puri.OSK0, not the interface's squeekboard.
            #expect(
                sink.updates.allSatisfy { $0.keyboard.name == name && $0.keyboard.pid == stub.pid },
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
