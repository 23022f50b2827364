import Foundation
import TestSupport
import Testing

/// kbwatch against a real compositor that cannot show keyboards to a client.
@Suite("kbwatch on Wayland")
struct LiveWaylandTests {
    @Test("Weston: the wayland backend is unavailable; kbwatch exits 4 and says why", arguments: Stack.compositors)
    func westonUnavailable(stack: Stack) throws {
        guard try Userland.ready(stack, ["weston"]) else { return }
        let weston = try HeadlessWeston(stack: stack)
        defer { weston.stop() }
        let result = try Kbwatch.run(
            ["--backend", "wayland"], environment: ["WAYLAND_DISPLAY": weston.socket, "DISPLAY": nil])
        #expect(result.status == 4)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("kbwatch: backend 'wayland' is unavailable: "))
        #expect(result.stderr.contains("lacks zwlr_layer_shell_v1"))
        let listed = try Kbwatch.run(
            ["--list-backends"], environment: ["WAYLAND_DISPLAY": weston.socket, "DISPLAY": nil])
        #expect(listed.stdout.contains("wayland: unavailable: "))
    }
}
