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
            arguments: [HeadlessSway.BarPosition.bottom, .top], Stack.compositors)
        func barAndKeyboard(position: HeadlessSway.BarPosition, stack: Stack) throws {
            guard try Programs.ready(["swaymsg"]), try Userland.ready(stack, ["sway", "swaybar", "wvkbd-mobintl"])
            else { return }
            let sway = try HeadlessSway(bar: position, stack: stack)
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
            // Both reservations are in place: the bar's and the keyboard's (wvkbd 0.12's 240 px,
            // 0.15's 250 px).
            let height = stack == .debian12 ? 240 : 250
            try Fixture.waitForUsableArea(
                backend, "HEADLESS-1", Rect(x: 0, y: workspace.y, width: 1280, height: workspace.height - height))
            keyboard.signal(SIGUSR1)
            try sink.waitForUpdates(4, "wvkbd hidden")
            try Fixture.waitForUsableArea(backend, "HEADLESS-1", workspace)

            // The keyboard at the outer edge, the bar never in it.
            let expected = Fixture.wvkbdCycles(output: Self.output, height: height, stepped: stack != .debian12)
            #expect(
                expected.map { Array($0.prefix(4)) }.contains(Fixture.lines(sink.updates)),
                "\(Fixture.lines(sink.updates))\nwvkbd's log:\n\(keyboard.log)")
            #expect(Set(sink.observations.map(\.keyboard.id)) == ["wayland:HEADLESS-1:bottom"])
        }
    }
}
