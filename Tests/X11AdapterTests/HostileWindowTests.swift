import CX11
import Foundation
import KeyboardAdapterCore
import KeyboardBackendInterface
import TestSupport
import Testing
import X11Adapter

/// Windows of other clients that try to slow the backend down.
@Suite("X11 hostile windows")
struct HostileWindowTests {
    @Test(
        "an ordinary window rewriting _NET_WM_WINDOW_TYPE with 4096 unknown atoms 50 times does not delay the keyboard")
    func unknownAtomStorm() throws {
        guard let h = try Harness.make(openbox: false, programs: ["matchbox-keyboard"]) else { return }
        try h.session.start("matchbox-keyboard")
        try h.sink.waitForEvents([.willShow, .didShow], since: 0, "matchbox-keyboard to show")
        let window = try windowID(try h.onlyKeyboard())

        let hostile = try XTestClient.connect(h.session.display)
        let ordinary = hostile.createWindow(
            x: 10, y: 10, width: 50, height: 50, classBytes: Array("plain\0Plain\0".utf8),
            titleBytes: Array("plain".utf8))
        // Atoms far above any the server has interned: each is unknown, and each rewrite uses new
        // ones, so no cache of names can hide the cost; only reading few of them does.
        for rewrite in 0..<50 {
            let atoms = (0..<4096).map { UInt(0x0100_0000 + rewrite * 4096 + $0) }
            hostile.setValues(ordinary, "_NET_WM_WINDOW_TYPE", type: Atom(XA_ATOM), atoms)
        }
        hostile.sync()

        let mover = try XTestClient.connect(h.session.display)
        let mark = h.sink.mark
        let started = MonotonicClock.now()
        mover.configure(window, x: 40, y: 300)
        _ = try h.sink.waitForUpdates("the move after the atom storm", since: mark, timeout: 30, quiet: 0) {
            $0.contains { $0.event == .willChangeFrame }
        }
        let delay = MonotonicClock.now() - started
        // Generous: a keyboard event takes about a millisecond; the storm cost seconds before.
        #expect(delay < 0.5, "the keyboard event took \(delay) s after the storm")
        print("keyboard event \(String(format: "%.4f", delay)) s after 50 rewrites of 4096 unknown atoms")
    }
}
