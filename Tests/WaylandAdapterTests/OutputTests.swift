import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing
import WaylandAdapter

extension WaylandIntegration {
    /// One probe per output; frames in global logical coordinates; outputs added later.
    ///
    /// Removal (`global_remove`, the probe's `closed`) cannot be driven on sway 1.7 headless: it has
    /// no `output unplug`, and `output X disable` keeps the global and its layer surfaces.
    @Suite("outputs: two at different scales, one added later")
    struct OutputTests {
        /// wvkbd 0.12 puts its surface on the first wl_output the compositor announces (HEADLESS-1 on
        /// sway 1.7); wvkbd 0.15 names no output on its first show, so sway puts it on the focused
        /// one (sway 1.10 starts with HEADLESS-2 focused, and announces it first). HEADLESS-1 is the
        /// scale-2 output, placed second, right of a 1280x800 HEADLESS-2: 1920x1080 at scale 2 is
        /// 960x540 logical; the test focuses it before the keyboard shows.
        static let scaled = Output(name: "HEADLESS-1", frame: Rect(x: 1280, y: 0, width: 960, height: 540))
        static let plain = Output(name: "HEADLESS-2", frame: Rect(x: 0, y: 0, width: 1280, height: 800))

        static func twoOutputs(stack: Stack) throws -> HeadlessSway {
            try HeadlessSway(
                outputs: [
                    .init(width: 1920, height: 1080, x: 1280, y: 0, scale: 2),
                    .init(width: 1280, height: 800, x: 0, y: 0),
                ], stack: stack)
        }

        @Test(
            "a keyboard on the scale-2 output is reported there, in logical coordinates", arguments: Stack.compositors)
        func scaledOutput(stack: Stack) throws {
            guard try Programs.ready(["swaymsg"]), try Userland.ready(stack, ["sway", "wvkbd-mobintl"]) else { return }
            let sway = try Self.twoOutputs(stack: stack)
            defer { sway.stop() }
            let (backend, sink, watching) = try Fixture.watch(sway, until: "HEADLESS-1", measures: Self.scaled.frame)
            defer { watching.stop() }
            try Fixture.waitForUsableArea(backend, "HEADLESS-2", Self.plain.frame)
            try sway.message(["focus output HEADLESS-1"])

            let keyboard = try Fixture.wvkbd(sway)
            defer { keyboard.stop() }
            keyboard.signal(SIGUSR2)
            try sink.waitForUpdates(2, "wvkbd shown on HEADLESS-1")
            keyboard.signal(SIGUSR1)
            try sink.waitForUpdates(4, "wvkbd hidden")

            // wvkbd reserves its 240 (0.12) or 250 (0.15) logical px there too, 0.15's first show
            // possibly through 120 px; the other output's area never changed.
            let expected = Fixture.wvkbdCycles(
                output: Self.scaled, height: stack == .debian12 ? 240 : 250, stepped: stack != .debian12)
            #expect(
                expected.map { Array($0.prefix(4)) }.contains(Fixture.lines(sink.updates)),
                "\(Fixture.lines(sink.updates))\nwvkbd's log:\n\(keyboard.log)")
            #expect(backend.outputs.first { $0.output.name == "HEADLESS-2" }?.usableArea == Self.plain.frame)
        }

        @Test("an output added later gets its own probe", arguments: Stack.compositors)
        func addedOutput(stack: Stack) throws {
            guard try Programs.ready(["swaymsg"]), try Userland.ready(stack, ["sway"]) else { return }
            let sway = try HeadlessSway(stack: stack)
            defer { sway.stop() }
            let backend = WaylandBackend(display: sway.socket)
            let watching = try BackendLoop(backend, sink: TrackingSink(backendName: "wayland"))
            defer { watching.stop() }
            try Fixture.waitForUsableArea(backend, "HEADLESS-1", Rect(x: 0, y: 0, width: 1280, height: 800))
            try sway.message(["create_output"])
            try Wait.require("a measured HEADLESS-2 (have \(backend.outputs))", timeout: 10) {
                backend.outputs.contains { $0.output.name == "HEADLESS-2" && $0.usableArea == $0.output.frame }
            }
        }
    }
}
