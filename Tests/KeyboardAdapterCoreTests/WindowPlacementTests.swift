import Foundation
import KeyboardAdapterTesting
import KeyboardBackendInterface
import Testing

@testable import KeyboardAdapterCore

/// Where the display server shows the app's focused window (GNOME Shell slides it up itself),
/// as the manager gives it to a Swift app.
@Suite("Manager: the focused window where the display server shows it")
struct WindowPlacementTests {
    /// A keyboard shown for this app while its window, frame `0,32 1280x768`, is shown at `shown`.
    static func show(_ rig: LiveRig, shown: Rect?, isLocal: Bool) {
        let focus = FocusedTopLevel(processIDs: [getpid()], knows: [.processes], frame: shown)
        rig.backend.observe(
            KeyboardObservation(
                time: MonotonicClock.now(), keyboard: Fixture.osk, frame: Rect(x: 0, y: 533, width: 1280, height: 267),
                isDocked: true, dockedEdge: .bottom, output: Fixture.screen, isLocal: isLocal, focus: focus))
        rig.drain()
    }

    @Test("slid up by the keyboard's height, the window is covered by nothing; left in place, by the keyboard's height")
    func slidAndInPlace() throws {
        let slid = try LiveRig()
        Self.show(slid, shown: Rect(x: 0, y: -235, width: 1280, height: 768), isLocal: true)
        #expect(slid.manager.focusedWindowFrame == Rect(x: 0, y: -235, width: 1280, height: 768))
        #expect(slid.manager.insetsForFocusedWindow() == .zero)
        // Measured where the app thinks its window is, the keyboard would seem to cover 267 px.
        #expect(slid.manager.insets(forWindow: Rect(x: 0, y: 32, width: 1280, height: 768)).bottom == 267)

        let left = try LiveRig()
        Self.show(left, shown: Rect(x: 0, y: 32, width: 1280, height: 768), isLocal: true)
        #expect(left.manager.insetsForFocusedWindow()?.bottom == 267)
    }

    @Test("another app's window, or none told: nil")
    func unknown() throws {
        let other = try LiveRig()
        Self.show(other, shown: Rect(x: 0, y: -235, width: 1280, height: 768), isLocal: false)
        #expect(other.manager.focusedWindowFrame == nil && other.manager.insetsForFocusedWindow() == nil)
        let untold = try LiveRig()
        Self.show(untold, shown: nil, isLocal: true)
        #expect(untold.manager.focusedWindowFrame == nil)
    }

    @Test("only a backend whose keyboard service moves windows can leave them in place")
    func leaveInPlace() throws {
        let rig = try LiveRig()
        #expect(!rig.manager.leaveWindowsInPlace(processIDs: [getpid()]))
    }
}
