import Foundation
import KeyboardAdapterCore
import Testing
import TestSupport
import WaylandAdapter

extension WaylandIntegration {
    @Suite("wvkbd on headless sway")
    struct WvkbdTests {
        static let output = Output(name: "HEADLESS-1", frame: Rect(x: 0, y: 0, width: 1280, height: 800))

        @Test("show, hide, show with exact frames on a 1280x800 output")
        func showHideShow() throws {
            guard try Fixture.ready(["sway", "wvkbd-mobintl"]) else { return }
            let sway = try HeadlessSway()
            defer { sway.stop() }
            let sink = TrackingSink()
            let backend = WaylandBackend(display: sway.socket)
            #expect(backend.availability().isAvailable)
            try backend.start(sink: sink)
            defer { backend.stop() }
            try Fixture.waitForUsableArea(backend, "HEADLESS-1", Self.output.frame)

            let keyboard = try Fixture.wvkbd(sway)
            defer { keyboard.stop() }
            keyboard.signal(SIGUSR2)
            try sink.waitForUpdates(2, "wvkbd shown")
            keyboard.signal(SIGUSR1)
            try sink.waitForUpdates(4, "wvkbd hidden")
            keyboard.signal(SIGUSR2)
            try sink.waitForUpdates(6, "wvkbd shown again")

            // wvkbd reserves 240 px at the bottom; its virtual keyboard's keymap names the layout.
            let cycle = Fixture.showHide(
                id: "wayland:HEADLESS-1:bottom", frame: Rect(x: 0, y: 560, width: 1280, height: 240),
                offScreen: Rect(x: 0, y: 800, width: 1280, height: 240), edge: .bottom, output: Self.output,
                layout: "wvkbd")
            #expect(Fixture.lines(sink.updates) == cycle + cycle.prefix(2))
            #expect(sink.finished.isEmpty)
        }
    }
}
