import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing
import WaylandAdapter

extension WaylandIntegration {
    /// labwc, a second wlroots compositor with layer shell (0.8 on Debian 13, 0.20 on forky; Debian
    /// 12 has none), with wvkbd: the same exact strips as on sway.
    @Suite("wvkbd on headless labwc")
    struct LabwcTests {
        @Test("show, hide, show with exact frames on labwc's headless output", arguments: Stack.newerWlroots)
        func showHideShow(stack: Stack) throws {
            guard try Userland.ready(stack, ["labwc", "wvkbd-mobintl"]) else { return }
            let labwc = try HeadlessLabwc(stack: stack)
            defer { labwc.stop() }
            let sink = TrackingSink(backendName: "wayland")
            let backend = WaylandBackend(display: labwc.socket)
            #expect(backend.availability().isAvailable, "\(backend.availability())")
            let watching = try BackendLoop(backend, sink: sink)
            defer { watching.stop() }
            var output: Output?
            try Wait.require("labwc's output measured (\(backend.outputs))", timeout: 10) {
                output = backend.outputs.first { $0.usableArea == $0.output.frame }?.output
                return output != nil
            }
            let screen = try #require(output)

            let keyboard = try Fixture.wvkbd(labwc)
            defer { keyboard.stop() }
            try Fixture.showHideShow(keyboard, sink)

            // wvkbd 0.15 reserves 250 px at the bottom of the output (its log: "Resize 1280x250").
            let expected = Fixture.wvkbdCycles(output: screen, height: 250, stepped: true)
            #expect(expected.contains(Fixture.lines(sink.updates)), "wvkbd's log:\n\(keyboard.log)")
            #expect(sink.failures.isEmpty)
        }
    }
}
