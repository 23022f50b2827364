import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing
import WaylandAdapter

extension WaylandIntegration {
    /// Panels come with outputs: a bar on an output plugged while watching is no keyboard.
    @Suite("outputs plugged while watching, with swaybar")
    struct PluggedOutputTests {
        @Test(
            "five outputs plugged with swaybar configured while three watchers run: no keyboard reported",
            arguments: Stack.compositors)
        func pluggedOutputs(stack: Stack) throws {
            guard try Programs.ready(["swaymsg"]), try Userland.ready(stack, ["sway", "swaybar"]) else { return }
            let sway = try HeadlessSway(bar: .top, stack: stack)
            defer { sway.stop() }
            let workspace = try Fixture.waitForWorkspaceArea(sway, "the top bar's exclusive zone") { $0.height < 800 }
            let watchers = try (0..<3).map { _ in
                try Fixture.watch(
                    sway, until: "HEADLESS-1",
                    measures: Rect(x: 0, y: workspace.y, width: 1280, height: workspace.height))
            }
            defer { watchers.forEach { $0.watching.stop() } }

            for number in 2...6 {
                try sway.message(["create_output"])
                // sway's own view first: its swaybar for the new output reserves its zone there
                // (which under the suite's parallel load can take seconds).
                try Wait.require("sway to show a bar on HEADLESS-\(number)", timeout: 60) {
                    (try? Fixture.workspaceArea(sway, output: "HEADLESS-\(number)")).map { area in
                        sway.outputFrame("HEADLESS-\(number)").map { area != $0 } ?? false
                    } ?? false
                }
                // Then each watcher measures the new output with its bar in place.
                for watcher in watchers {
                    try Wait.require(
                        "HEADLESS-\(number) measured with its bar (have \(watcher.backend.outputs))", timeout: 10
                    ) {
                        watcher.backend.outputs.contains {
                            $0.output.name == "HEADLESS-\(number)"
                                && $0.usableArea != $0.output.frame
                        }
                    }
                }
            }
            // Time for a late bar or a late report to show up.
            Thread.sleep(forTimeInterval: 1)
            for (index, watcher) in watchers.enumerated() {
                let shown = watcher.sink.observations.filter { $0.frame != nil }
                #expect(
                    shown.isEmpty,
                    "watcher \(index) reported keyboards: \(shown.map { "\($0.keyboard.id) \($0.frame!)" })")
                #expect(watcher.sink.visible.isEmpty)
            }
        }
    }
}
