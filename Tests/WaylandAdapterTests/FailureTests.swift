import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing
import WaylandAdapter

extension WaylandIntegration {
    /// Compositors the backend cannot watch, and compositors that go away.
    @Suite("unsupported and lost compositors")
    struct FailureTests {
        @Test(
            "Weston headless: unavailable, naming zwlr_layer_shell_v1; start throws; nothing crashes",
            arguments: Stack.compositors)
        func westonUnavailable(stack: Stack) throws {
            guard try Userland.ready(stack, ["weston"]) else { return }
            let weston = try HeadlessWeston(stack: stack)
            defer { weston.stop() }
            let backend = WaylandBackend(display: weston.socket)
            let availability = backend.availability()
            // Weston's own keyboard holds its input panel, which other clients must not bind.
            #expect(
                availability
                    == .unavailable(
                        reason: "compositor at \(weston.socket) lacks zwlr_layer_shell_v1; "
                            + "on-screen keyboard geometry is not observable "
                            + "(its zwp_input_panel_v1 is private to the compositor's own input method)"))
            #expect(throws: BackendFailure.self) {
                try BackendLoop(backend, sink: TrackingSink(backendName: "wayland"))
            }
            #expect(backend.diagnose().contains { $0.contains("zwlr_layer_shell_v1") })
            #expect(weston.process.isRunning)
        }

        @Test("no compositor at the socket: unreachable with the reason")
        func noCompositor() {
            let backend = WaylandBackend(display: "/nonexistent/wayland-9")
            let availability = backend.availability()
            #expect(
                availability
                    == .unreachable(
                        reason:
                            "cannot connect to the Wayland compositor at /nonexistent/wayland-9: No such file or directory"
                    ))
        }

        @Test(
            "compositor killed while a keyboard is visible: the keyboard hides, then the failure",
            arguments: Stack.compositors)
        func compositorKilled(stack: Stack) throws {
            guard try Userland.ready(stack, ["sway", "wvkbd-mobintl"]) else { return }
            let sway = try HeadlessSway(stack: stack)
            defer { sway.stop() }
            let (_, sink, watching) = try Fixture.watch(
                sway, until: "HEADLESS-1", measures: Rect(x: 0, y: 0, width: 1280, height: 800))
            defer { watching.stop() }
            let keyboard = try Fixture.wvkbd(sway)
            defer { keyboard.stop() }
            keyboard.signal(SIGUSR2)
            try sink.waitForUpdates(2, "wvkbd shown")

            sway.process.signal(SIGKILL)
            try Wait.require("the backend to report the lost compositor", timeout: 10) { !sink.failures.isEmpty }
            #expect(sink.events == [.willShow, .didShow, .willHide, .didHide])
            #expect(sink.observations.last?.frame == nil)
            let failure = try #require(sink.failures.first ?? nil)
            #expect(failure.backend == "wayland")
            #expect(failure.kind == .connectionLost)
            #expect(failure.reason.hasPrefix("lost the connection to the Wayland compositor at \(sway.socket)"))
            #expect(sink.failures.count == 1)
        }
    }
}
