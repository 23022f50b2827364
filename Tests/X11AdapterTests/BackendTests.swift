import Foundation
import KeyboardAdapterCore
import KeyboardBackendInterface
import TestSupport
import Testing
import X11Adapter

/// The plugin's contract: availability, start with keyboards already on screen, diagnose, stop.
@Suite("X11 backend")
struct BackendTests {
    @Test("no X server: unreachable, and start throws")
    func unreachable() throws {
        let backend = X11Backend(displayName: ":999", rules: .builtIn)
        guard case .unreachable(let reason) = backend.availability() else {
            Issue.record("expected unreachable, got \(backend.availability())")
            return
        }
        #expect(reason == "cannot open X display :999")
        #expect(throws: BackendFailure.self) { try BackendLoop(backend, sink: TrackingSink(backendName: "x11")) }
        #expect(X11Backend.registration.name == "x11" && X11Backend.registration.hint.variables == ["DISPLAY"])
    }

    @Test("a keyboard already visible is delivered before start returns; diagnose lists it; stop is prompt")
    func startWithKeyboardShown() throws {
        guard let h = try Harness.make(openbox: true, programs: ["xvkbd"], startBackend: false) else { return }
        try h.session.start("xvkbd")
        let probe = X11Backend(displayName: h.session.display, rules: .builtIn)
        try Wait.require("xvkbd to be on screen", timeout: 10) {
            probe.diagnose().contains { $0.hasPrefix("x11: keyboard xvkbd") }
        }
        #expect(probe.availability().isAvailable)
        let lines = probe.diagnose()
        #expect(lines.contains("x11: window manager: Openbox"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("x11: X server \(h.session.display), screen 1280x800") }, "\(lines)")

        try h.startBackend()
        let first = h.sink.observations
        #expect(
            first.count == 1 && first.first?.keyboard.name == "xvkbd" && first.first?.frame != nil,
            "delivered before start returned: \(first)")
        let shown = try h.sink.waitForEvents([.willShow, .didShow], since: 0, "the settled show")
        try h.expectFrameMatchesServer(try #require(shown.last))

        let started = MonotonicClock.now()
        h.stopBackend()
        h.stopBackend()
        #expect(MonotonicClock.now() - started < 0.5, "stop wakes the loop at once")
        #expect(h.sink.failures.isEmpty, "a stop is no failure")
    }
}
