import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing
import WaylandAdapter

extension WaylandIntegration {
    @Suite("squeekboard on headless sway")
    struct SqueekboardTests {
        static let output = Output(name: "HEADLESS-1", frame: Rect(x: 0, y: 0, width: 1280, height: 800))

        @Test("shown and hidden with SetVisible on sm.puri.OSK0", arguments: Stack.compositors)
        func setVisible(stack: Stack) throws {
            guard try Programs.ready(["dbus-daemon", "dbus-send"]), try Userland.ready(stack, ["sway", "squeekboard"])
            else { return }
            let sway = try HeadlessSway(stack: stack)
            defer { sway.stop() }
            let bus = try SessionBus(directory: sway.runtime.path, home: sway.runtime.home)
            defer { bus.stop() }
            let (_, sink, watching) = try Fixture.watch(sway, until: "HEADLESS-1", measures: Self.output.frame)
            defer { watching.stop() }

            let keyboard = try Fixture.squeekboard(sway, bus: bus)
            defer { keyboard.stop() }

            try bus.call("sm.puri.OSK0", "/sm/puri/OSK0", "sm.puri.OSK0.SetVisible", ["boolean:true"])
            try sink.waitForUpdates(2, "squeekboard shown")
            try bus.call("sm.puri.OSK0", "/sm/puri/OSK0", "sm.puri.OSK0.SetVisible", ["boolean:false"])
            try sink.waitForUpdates(4, "squeekboard hidden")

            // squeekboard reserves 400 px at the bottom of a 1280x800 output; 1.21's virtual keyboard
            // gives the seat an English (US) keymap at once, 1.43's none before it types, so the
            // layout is unknown there.
            #expect(
                Fixture.lines(sink.updates)
                    == Fixture.showHide(
                        id: "wayland:HEADLESS-1:bottom", frame: Rect(x: 0, y: 400, width: 1280, height: 400),
                        offScreen: Rect(x: 0, y: 800, width: 1280, height: 400), edge: .bottom, output: Self.output,
                        layout: stack == .debian12 ? "English (US)" : nil))
        }
    }
}
