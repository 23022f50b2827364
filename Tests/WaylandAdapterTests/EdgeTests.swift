import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing
import WaylandAdapter

extension WaylandIntegration {
    /// The popup origin trick end to end: docks at the top, left and right edges (no packaged
    /// keyboard docks there) are told apart from a bottom one by the usable area's origin.
    @Suite("docked keyboards at every edge")
    struct EdgeTests {
        static let output = Output(name: "HEADLESS-1", frame: Rect(x: 0, y: 0, width: 1280, height: 800))

        /// Each edge's dock: its thickness and the frame it takes on the 1280x800 output.
        static let docks: [Edge: (thickness: Int, frame: Rect)] = [
            .top: (50, Rect(x: 0, y: 0, width: 1280, height: 50)),
            .left: (200, Rect(x: 0, y: 0, width: 200, height: 800)),
            .right: (300, Rect(x: 980, y: 0, width: 300, height: 800)),
        ]

        @Test(
            "a dock at the top, left or right is reported at that edge with its exact frame",
            arguments: [Edge.top, .left, .right], Stack.compositors)
        func edge(edge: Edge, stack: Stack) throws {
            guard try Userland.ready(stack, ["sway"]) else { return }
            let (thickness, frame) = try #require(Self.docks[edge])
            let sway = try HeadlessSway(stack: stack)
            defer { sway.stop() }
            let (_, sink, watching) = try Fixture.watch(sway, until: "HEADLESS-1", measures: Self.output.frame)
            defer { watching.stop() }

            let dock = try FakeDock(socket: sway.socket, edge: edge, thickness: thickness)
            try sink.waitForUpdates(2, "the \(edge.rawValue) dock shown")
            dock.remove()
            try sink.waitForUpdates(4, "the \(edge.rawValue) dock hidden")

            #expect(
                Fixture.lines(sink.updates)
                    == Fixture.showHide(
                        id: "wayland:HEADLESS-1:\(edge.rawValue)", frame: frame,
                        offScreen: frame.movedOffScreen(through: edge, of: Self.output.frame), edge: edge,
                        output: Self.output, layout: nil))
        }
    }
}
