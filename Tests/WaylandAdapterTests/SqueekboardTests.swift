import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing
import WaylandAdapter

extension WaylandIntegration {
    @Suite("squeekboard on headless sway")
    struct SqueekboardTests {
        static let output = Output(name: "HEADLESS-1", frame: Rect(x: 0, y: 0, width: 1280, height: 800))

        @Test("shown and hidden with SetVisible on sm.puri.OSK0")
        func setVisible() throws {
            guard try Fixture.ready(["sway", "squeekboard", "dbus-daemon", "dbus-send"]) else { return }
            let sway = try HeadlessSway()
            defer { sway.stop() }
            let bus = try SessionBus(directory: sway.runtime.path, home: sway.runtime.home)
            defer { bus.stop() }
            let (_, sink, watching) = try Fixture.watch(sway, until: "HEADLESS-1", measures: Self.output.frame)
            defer { watching.stop() }

            var environment = sway.clientEnvironment
            environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
            environment["GDK_BACKEND"] = "wayland"
            environment["NO_AT_BRIDGE"] = "1"  // no accessibility bus daemons to clean up after
            let keyboard = try ChildProcess("squeekboard", [], environment: environment, directory: sway.runtime.path)
            defer { keyboard.stop() }
            try bus.waitForName("sm.puri.OSK0")

            try bus.call("sm.puri.OSK0", "/sm/puri/OSK0", "sm.puri.OSK0.SetVisible", ["boolean:true"])
            try sink.waitForUpdates(2, "squeekboard shown")
            try bus.call("sm.puri.OSK0", "/sm/puri/OSK0", "sm.puri.OSK0.SetVisible", ["boolean:false"])
            try sink.waitForUpdates(4, "squeekboard hidden")

            // squeekboard reserves 400 px at the bottom of a 1280x800 output; its virtual keyboard's
            // keymap is English (US).
            #expect(
                Fixture.lines(sink.updates)
                    == Fixture.showHide(
                        id: "wayland:HEADLESS-1:bottom", frame: Rect(x: 0, y: 400, width: 1280, height: 400),
                        offScreen: Rect(x: 0, y: 800, width: 1280, height: 400), edge: .bottom, output: Self.output,
                        layout: "English (US)"))
        }
    }
}
