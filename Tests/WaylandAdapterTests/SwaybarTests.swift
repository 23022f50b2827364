import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing
import WaylandAdapter

extension WaylandIntegration {
    /// A panel's exclusive zone is baseline: only the keyboard's growth is reported, at the outer edge.
    @Suite("wvkbd with swaybar on headless sway")
    struct SwaybarTests {
        static let output = Output(name: "HEADLESS-1", frame: Rect(x: 0, y: 0, width: 1280, height: 800))

        @Test(
            "bar at the bottom or the top: exact keyboard frame, bar never reported",
            arguments: [HeadlessSway.BarPosition.bottom, .top])
        func barAndKeyboard(position: HeadlessSway.BarPosition) throws {
            guard try Fixture.ready(["sway", "swaybar", "swaymsg", "wvkbd-mobintl"]) else { return }
            let sway = try HeadlessSway(bar: position)
            defer { sway.stop() }
            // The bar must be up before watching starts, or it would count as a keyboard appearing.
            let workspace = try Fixture.waitForWorkspaceArea(sway, "the \(position.rawValue) bar's exclusive zone") {
                $0.height < 800
            }
            let bar = 800 - workspace.height
            #expect(workspace.y == (position == .top ? bar : 0))

            let (backend, sink, watching) = try Fixture.watch(sway, until: "HEADLESS-1", measures: workspace)
            defer { watching.stop() }

            let keyboard = try Fixture.wvkbd(sway)
            defer { keyboard.stop() }
            keyboard.signal(SIGUSR2)
            try sink.waitForUpdates(2, "wvkbd shown above the \(position.rawValue) bar")
            // Both reservations are in place: the bar's and the keyboard's.
            try Fixture.waitForUsableArea(
                backend, "HEADLESS-1",
                Rect(
                    x: 0, y: workspace.y, width: 1280, height: workspace.height - 240))
            keyboard.signal(SIGUSR1)
            try sink.waitForUpdates(4, "wvkbd hidden")
            try Fixture.waitForUsableArea(backend, "HEADLESS-1", workspace)

            #expect(
                Fixture.lines(sink.updates)
                    == Fixture.showHide(
                        id: "wayland:HEADLESS-1:bottom", frame: Rect(x: 0, y: 560, width: 1280, height: 240),
                        offScreen: Rect(x: 0, y: 800, width: 1280, height: 240), edge: .bottom, output: Self.output,
                        layout: "wvkbd"))
            #expect(Set(sink.observations.map(\.keyboard.id)) == ["wayland:HEADLESS-1:bottom"])
        }
    }
}
