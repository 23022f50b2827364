import Foundation
import KeyboardAdapterCore
import KeyboardServices
import TestSupport
import Testing
import WaylandAdapter

extension WaylandIntegration {
    /// The manager's lifecycle races on the wlroots backend joined with squeekboard's service, as
    /// the `KeyboardAdapter` product runs it, with squeekboard up before the manager starts.
    @Suite("sway with squeekboard: the manager's lifecycle under races")
    struct LifecycleRaceTests {
        @Test(
            "restarts from immediate callbacks, two stops, 1 000 start/stop races, an owner released in its callback: no hang, starts and stops balanced",
            arguments: Stack.compositors)
        func races(stack: Stack) throws {
            guard try Programs.ready(["dbus-daemon", "dbus-send"]), try Userland.ready(stack, ["sway", "squeekboard"])
            else { return }
            let sway = try HeadlessSway(stack: stack)
            defer { sway.stop() }
            let bus = try SessionBus(directory: sway.runtime.path, home: sway.runtime.home)
            defer { bus.stop() }
            let keyboard = try Fixture.squeekboard(sway, bus: bus)
            defer { keyboard.stop() }
            try bus.call("sm.puri.OSK0", "/sm/puri/OSK0", "sm.puri.OSK0.SetVisible", ["boolean:true"])
            // Up before the races begin: the output's usable area is what squeekboard leaves.
            let (_, _, watching) = try Fixture.watch(
                sway, until: "HEADLESS-1", measures: Rect(x: 0, y: 0, width: 1280, height: 400))
            watching.stop()
            let socket = sway.socket
            let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
            try LifecycleRaces.runAll(keyboard: "wayland:") {
                WaylandBackend(
                    display: socket, services: [DBusKeyboardService.squeekboard(environment: environment)],
                    environment: [:])
            }
        }
    }
}
