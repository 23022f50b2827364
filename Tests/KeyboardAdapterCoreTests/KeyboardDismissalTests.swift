import Foundation
import KeyboardAdapterTesting
import KeyboardDismissal
import Synchronization
import Testing

@testable import KeyboardAdapterCore

/// A 600-row window whose bottom 200 rows a keyboard covers (its top edge at row 400, its bottom
/// 40 rows below the window's), with the 48-row bar resting on it: a drag travels 200 rows.
struct DismissalRig {
    static let bar = Rect(x: 0, y: 352, width: 800, height: 48)
    static let field = Rect(x: 12, y: 360, width: 776, height: 32)
    static let keyboard = Rect(x: 0, y: 400, width: 800, height: 240)
    static let layout = KeyboardDismissalLayout(bar: bar, focusedField: field, keyboard: keyboard, windowHeight: 600)

    /// How many times the helper asked for the keyboard to hide (on the test's own thread).
    final class HideCounter { var count = 0 }
    let hides = HideCounter()
    let dismissal: KeyboardDismissal

    init(
        _ configuration: KeyboardDismissal.Configuration = .init(),
        availability: KeyboardDismissalAvailability = .throughDisplayServer
    ) {
        let hides = hides
        dismissal = KeyboardDismissal(
            configuration: configuration, availability: { availability },
            requestHide: { hides.count += 1 })
        #expect(dismissal.update(Self.layout) == .none)
    }

    var hideCount: Int { hides.count }

    /// The bar `offset` rows below its resting place.
    static func at(_ offset: Double) -> KeyboardDismissalPosition {
        KeyboardDismissalPosition(
            offset: offset, fraction: offset / 200, barFrame: bar.offsetBy(dx: 0, dy: Int(offset.rounded())))
    }
}

@Suite("Keyboard dismissal: drags, releases, taps")
struct KeyboardDismissalTests {
    @Test("a drag that stays above the keyboard's top edge does nothing, and asks nothing")
    func neverReachesTheKeyboard() {
        let rig = DismissalRig()
        let d = rig.dismissal
        #expect(d.pointerDown(x: 400, y: 100, time: 0) == .none)
        #expect(d.pointerMoved(x: 400, y: 250, time: 0.1) == .none)
        #expect(d.pointerMoved(x: 400, y: 400, time: 0.2) == .none)  // on the edge: not across it
        #expect(!d.isFollowing)
        // Fast, but above the keyboard all the way: no flick.
        #expect(d.pointerUp(x: 400, y: 400, time: 0.21) == .none)
        #expect(rig.hideCount == 0)
    }

    @Test("across the edge the bar follows the finger; released past half, the keyboard is asked to hide")
    func releasedPastTheThreshold() {
        let rig = DismissalRig()
        let d = rig.dismissal
        #expect(d.pointerDown(x: 400, y: 300, time: 0) == .none)
        #expect(d.pointerMoved(x: 400, y: 450, time: 0.1) == .follow(DismissalRig.at(50)))
        #expect(d.pointerMoved(x: 400, y: 520, time: 0.5) == .follow(DismissalRig.at(120)))
        #expect(d.isFollowing)
        // Held still, then lifted: no speed, the distance (0.6 of the keyboard) decides.
        #expect(d.pointerMoved(x: 400, y: 520, time: 1.0) == .follow(DismissalRig.at(120)))
        #expect(d.pointerUp(x: 400, y: 520, time: 1.05) == .dismiss(DismissalRig.at(120), .distance))
        #expect(rig.hideCount == 1)
        #expect(d.isDismissing)
        // A press while the hide is pending is ignored.
        #expect(d.pointerDown(x: 400, y: 300, time: 1.1) == .none)
        #expect(d.pointerMoved(x: 400, y: 500, time: 1.2) == .none)
        // The keyboard's willHide: the bar leaves its held place with the keyboard.
        var hidden = DismissalRig.layout
        hidden.keyboard = nil
        #expect(d.update(hidden) == .keyboardHid(from: DismissalRig.at(120)))
        #expect(!d.isDismissing)
        #expect(d.update(hidden) == .none)
        #expect(rig.hideCount == 1)
    }

    @Test("released before half, slowly: the bar springs back over the configured time")
    func releasedEarly() {
        let rig = DismissalRig(.init(restoreDuration: 0.3))
        let d = rig.dismissal
        #expect(d.pointerDown(x: 400, y: 300, time: 0) == .none)
        #expect(d.pointerMoved(x: 400, y: 460, time: 0.2) == .follow(DismissalRig.at(60)))
        #expect(d.pointerMoved(x: 400, y: 480, time: 0.6) == .follow(DismissalRig.at(80)))
        #expect(d.pointerUp(x: 400, y: 480, time: 0.8) == .restore(from: DismissalRig.at(80), duration: 0.3))
        #expect(rig.hideCount == 0)
        #expect(!d.isFollowing && !d.isDismissing)
    }

    @Test("the finger's path over the last 0.1 s decides the speed, not the whole drag")
    func speedOverTheInterval() {
        let rig = DismissalRig()
        let d = rig.dismissal
        _ = d.pointerDown(x: 400, y: 300, time: 0)
        // 160 rows in 0.1 s (1600 px/s), then still for 0.2 s: released at rest, 0.4 of the way.
        #expect(d.pointerMoved(x: 400, y: 460, time: 0.1) == .follow(DismissalRig.at(60)))
        #expect(d.pointerMoved(x: 400, y: 480, time: 0.2) == .follow(DismissalRig.at(80)))
        #expect(d.pointerMoved(x: 400, y: 480, time: 0.4) == .follow(DismissalRig.at(80)))
        #expect(d.pointerUp(x: 400, y: 480, time: 0.42) == .restore(from: DismissalRig.at(80), duration: 0.25))
        #expect(rig.hideCount == 0)
    }

    @Test("a fast flick down dismisses however little of the keyboard it crossed")
    func flickDown() {
        let rig = DismissalRig()
        let d = rig.dismissal
        #expect(d.pointerDown(x: 400, y: 300, time: 0) == .none)
        #expect(d.pointerMoved(x: 400, y: 420, time: 0.02) == .follow(DismissalRig.at(20)))
        // 140 rows in 0.04 s: 3500 px/s, 0.2 of the keyboard.
        #expect(d.pointerUp(x: 400, y: 440, time: 0.04) == .dismiss(DismissalRig.at(40), .flick))
        #expect(rig.hideCount == 1)
    }

    @Test("a fast flick back up restores however far the finger went")
    func flickUp() {
        let rig = DismissalRig()
        let d = rig.dismissal
        _ = d.pointerDown(x: 400, y: 300, time: 0)
        #expect(d.pointerMoved(x: 400, y: 620, time: 0.5) == .follow(DismissalRig.at(200)))
        #expect(d.pointerMoved(x: 400, y: 620, time: 0.85) == .follow(DismissalRig.at(200)))
        // 120 rows up in the last 0.1 s: -1200 px/s, though half of the keyboard is still crossed.
        #expect(d.pointerUp(x: 400, y: 500, time: 0.95) == .restore(from: DismissalRig.at(100), duration: 0.25))
        #expect(rig.hideCount == 0)
    }

    @Test("below the window's bottom the bar stops there: the fraction never passes 1")
    func clampedAtTheWindowBottom() {
        let rig = DismissalRig()
        let d = rig.dismissal
        _ = d.pointerDown(x: 400, y: 300, time: 0)
        #expect(d.pointerMoved(x: 400, y: 700, time: 0.5) == .follow(DismissalRig.at(200)))
        #expect(d.pointerUp(x: 400, y: 700, time: 1.0) == .dismiss(DismissalRig.at(200), .distance))
    }

    @Test("a drag that goes back above the edge puts the bar back once, then nothing; its release does nothing")
    func backAboveTheEdge() {
        let rig = DismissalRig(.init(dismissesOnTap: true))
        let d = rig.dismissal
        #expect(d.pointerDown(x: 400, y: 300, time: 0) == .none)
        #expect(d.pointerMoved(x: 400, y: 500, time: 0.1) == .follow(DismissalRig.at(100)))
        #expect(d.pointerMoved(x: 400, y: 390, time: 0.3) == .follow(DismissalRig.at(0)))
        #expect(!d.isFollowing)
        #expect(d.pointerMoved(x: 400, y: 350, time: 0.4) == .none)
        // Back near where it went down, quickly: a drag that crossed the edge is not a tap.
        #expect(d.pointerMoved(x: 400, y: 302, time: 0.42) == .none)
        #expect(d.pointerUp(x: 400, y: 302, time: 0.45) == .none)
        #expect(rig.hideCount == 0)
    }

    @Test("a pointer cancelled in the middle of a drag springs the bar back")
    func cancelled() {
        let rig = DismissalRig()
        let d = rig.dismissal
        _ = d.pointerDown(x: 400, y: 300, time: 0)
        #expect(d.pointerMoved(x: 400, y: 550, time: 0.2) == .follow(DismissalRig.at(150)))
        #expect(d.pointerCancelled() == .restore(from: DismissalRig.at(150), duration: 0.25))
        #expect(d.pointerUp(x: 400, y: 550, time: 0.3) == .none)
        #expect(rig.hideCount == 0)
    }

    @Test("a tap outside the field and the keyboard dismisses when asked; elsewhere, or not asked, it does not")
    func taps() {
        let tapping = DismissalRig(.init(dismissesOnTap: true))
        let d = tapping.dismissal
        #expect(d.pointerDown(x: 100, y: 200, time: 0) == .none)
        #expect(d.pointerMoved(x: 104, y: 203, time: 0.05) == .none)
        #expect(d.pointerUp(x: 104, y: 203, time: 0.1) == .dismiss(DismissalRig.at(0), .tap))
        #expect(tapping.hideCount == 1)
        var hidden = DismissalRig.layout
        hidden.keyboard = nil
        #expect(d.update(hidden) == .keyboardHid(from: DismissalRig.at(0)))
        // No keyboard: nothing to dismiss.
        _ = d.pointerDown(x: 100, y: 200, time: 1)
        #expect(d.pointerUp(x: 100, y: 200, time: 1.1) == .none)
        #expect(d.update(DismissalRig.layout) == .none)
        // In the focused field; moved 20 px (a scroll); held 0.8 s: none is a tap.
        _ = d.pointerDown(x: 100, y: 370, time: 2)
        #expect(d.pointerUp(x: 100, y: 370, time: 2.1) == .none)
        _ = d.pointerDown(x: 100, y: 200, time: 3)
        #expect(d.pointerMoved(x: 100, y: 220, time: 3.05) == .none)
        #expect(d.pointerUp(x: 100, y: 202, time: 3.1) == .none)
        _ = d.pointerDown(x: 100, y: 200, time: 4)
        #expect(d.pointerUp(x: 100, y: 200, time: 4.8) == .none)
        #expect(tapping.hideCount == 1)

        let plain = DismissalRig()
        _ = plain.dismissal.pointerDown(x: 100, y: 200, time: 0)
        #expect(plain.dismissal.pointerUp(x: 100, y: 200, time: 0.1) == .none)
        #expect(plain.hideCount == 0)
    }

    @Test("a press on the keyboard itself is the keyboard's: never followed, never a tap")
    func pressOnTheKeyboard() {
        let rig = DismissalRig(.init(dismissesOnTap: true))
        let d = rig.dismissal
        #expect(d.pointerDown(x: 400, y: 420, time: 0) == .none)
        #expect(d.pointerMoved(x: 400, y: 520, time: 0.1) == .none)
        #expect(d.pointerUp(x: 400, y: 520, time: 0.2) == .none)
        _ = d.pointerDown(x: 400, y: 420, time: 1)
        #expect(d.pointerUp(x: 400, y: 420, time: 1.05) == .none)
        #expect(rig.hideCount == 0)
    }

    @Test("a failed hide springs the held bar back; the keyboard stays")
    func hideFailed() {
        let rig = DismissalRig()
        let d = rig.dismissal
        #expect(d.hideFailed() == .none)
        _ = d.pointerDown(x: 400, y: 300, time: 0)
        _ = d.pointerMoved(x: 400, y: 540, time: 0.5)
        #expect(d.pointerUp(x: 400, y: 540, time: 1) == .dismiss(DismissalRig.at(140), .distance))
        #expect(d.hideFailed() == .restore(from: DismissalRig.at(140), duration: 0.25))
        #expect(!d.isDismissing)
        #expect(d.update(DismissalRig.layout) == .none)
    }
}

@Suite("Keyboard dismissal: a keyboard that moves or hides by itself, one that cannot be hidden")
struct KeyboardDismissalKeyboardTests {
    @Test("a keyboard that hides by itself in the middle of a drag ends it; the rest of the press is ignored")
    func hidesMidDrag() {
        let rig = DismissalRig()
        let d = rig.dismissal
        _ = d.pointerDown(x: 400, y: 300, time: 0)
        #expect(d.pointerMoved(x: 400, y: 500, time: 0.1) == .follow(DismissalRig.at(100)))
        var hidden = DismissalRig.layout
        hidden.keyboard = nil
        #expect(d.update(hidden) == .keyboardHid(from: DismissalRig.at(100)))
        #expect(!d.isFollowing)
        #expect(d.pointerMoved(x: 400, y: 560, time: 0.2) == .none)
        // The keyboard comes back before the finger lifts: still the same, ignored press.
        #expect(d.update(DismissalRig.layout) == .none)
        #expect(d.pointerMoved(x: 400, y: 560, time: 0.3) == .none)
        #expect(d.pointerUp(x: 400, y: 560, time: 0.4) == .none)
        #expect(rig.hideCount == 0)
        // The next press is followed again.
        _ = d.pointerDown(x: 400, y: 300, time: 1)
        #expect(d.pointerMoved(x: 400, y: 420, time: 1.1) == .follow(DismissalRig.at(20)))
    }

    @Test("a keyboard that moves in the middle of a drag: the bar is placed for the new edge, at rest above it")
    func movesMidDrag() {
        let rig = DismissalRig()
        let d = rig.dismissal
        _ = d.pointerDown(x: 400, y: 300, time: 0)
        #expect(d.pointerMoved(x: 400, y: 500, time: 0.1) == .follow(DismissalRig.at(100)))
        // Taller: its edge rises to 350 and the bar with it; the finger is now 150 below, of 250.
        let taller = KeyboardDismissalLayout(
            bar: DismissalRig.bar.offsetBy(dx: 0, dy: -50), focusedField: DismissalRig.field,
            keyboard: Rect(x: 0, y: 350, width: 800, height: 290), windowHeight: 600)
        #expect(
            d.update(taller)
                == .follow(
                    KeyboardDismissalPosition(
                        offset: 150, fraction: 0.6, barFrame: Rect(x: 0, y: 452, width: 800, height: 48))))
        // Shorter: its edge drops below the finger, so the bar rests on it.
        let shorter = KeyboardDismissalLayout(
            bar: Rect(x: 0, y: 472, width: 800, height: 48), focusedField: nil,
            keyboard: Rect(x: 0, y: 520, width: 800, height: 120), windowHeight: 600)
        #expect(
            d.update(shorter)
                == .follow(
                    KeyboardDismissalPosition(
                        offset: 0, fraction: 0, barFrame: Rect(x: 0, y: 472, width: 800, height: 48))))
        #expect(!d.isFollowing)
        // The finger crosses the new edge: 40 of its 80 rows.
        #expect(
            d.pointerMoved(x: 400, y: 560, time: 0.3)
                == .follow(
                    KeyboardDismissalPosition(
                        offset: 40, fraction: 0.5, barFrame: Rect(x: 0, y: 512, width: 800, height: 48))))
        #expect(
            d.pointerUp(x: 400, y: 560, time: 0.6)
                == .dismiss(
                    KeyboardDismissalPosition(
                        offset: 40, fraction: 0.5, barFrame: Rect(x: 0, y: 512, width: 800, height: 48)),
                    .distance))
        #expect(rig.hideCount == 1)
    }

    @Test("a keyboard that cannot be hidden: the helper says why beforehand and follows nothing")
    func cannotBeHidden() {
        let why = "the replay backend cannot hide keyboards"
        let rig = DismissalRig(.init(dismissesOnTap: true), availability: .unavailable(why))
        let d = rig.dismissal
        #expect(d.availability == .unavailable(why))
        #expect(!d.availability.isAvailable)
        #expect(d.pointerDown(x: 400, y: 300, time: 0) == .none)
        #expect(d.pointerMoved(x: 400, y: 560, time: 0.1) == .none)
        #expect(d.pointerUp(x: 400, y: 600, time: 0.12) == .none)
        _ = d.pointerDown(x: 100, y: 200, time: 1)
        #expect(d.pointerUp(x: 100, y: 200, time: 1.05) == .none)
        #expect(rig.hideCount == 0)
    }

    @Test("availability: a running service first, then the display server, else the reason")
    func availabilityFromTheBackend() {
        let onboardDown = KeyboardServiceReport(
            name: "onboard", address: "org.onboard.Onboard on the session bus",
            state: KeyboardServiceState(status: .notRunning))
        var onboardUp = onboardDown
        onboardUp.state = KeyboardServiceState(status: .running, isVisible: true, pid: 42)
        let squeekboard = KeyboardServiceReport(
            name: "squeekboard", address: "sm.puri.OSK0 on the session bus",
            state: KeyboardServiceState(status: .notRunning))
        #expect(
            KeyboardDismissalAvailability(
                backendName: "x11", capabilities: [.hidesKeyboards], services: [onboardUp], displayServerHides: true)
                == .throughService("onboard"))
        #expect(
            KeyboardDismissalAvailability(
                backendName: "x11", capabilities: [.hidesKeyboards], services: [onboardDown], displayServerHides: true)
                == .throughDisplayServer)
        #expect(
            KeyboardDismissalAvailability(
                backendName: "wayland", capabilities: [.hidesKeyboards], services: [squeekboard],
                displayServerHides: false)
                == .unavailable(
                    "only a keyboard's own service can hide it on the wayland backend, and none is running"
                        + " (squeekboard: not running)"))
        #expect(
            KeyboardDismissalAvailability(
                backendName: "replay", capabilities: [.reportsFrames], services: [], displayServerHides: false)
                == .unavailable("the replay backend cannot hide keyboards"))
        #expect(KeyboardManager(backend: InMemoryBackend()).dismissalAvailability == .throughDisplayServer)
    }

    @Test("with a manager: the release asks the manager, which hides the visible keyboard")
    func throughTheManager() throws {
        let rig = try LiveRig()
        rig.showAndSettle()
        let answers = HideAnswers()
        let d = KeyboardDismissal(manager: rig.manager) { result in answers.results.withLock { $0.append(result) } }
        let window = Rect(x: 240, y: 100, width: 800, height: 600)
        let keyboard = try #require(rig.manager.currentFrame)
        // The fixture keyboard's top edge is 460 rows into the window: it covers 140 of them.
        let layout = KeyboardDismissalLayout(
            bar: Rect(x: 0, y: 412, width: 800, height: 48), focusedField: nil, globalKeyboard: keyboard,
            window: window)
        #expect(layout.keyboard == Rect(x: -240, y: 460, width: 1280, height: 240))
        #expect(d.update(layout) == .none)
        _ = d.pointerDown(x: 400, y: 300, time: 0)
        #expect(
            d.pointerMoved(x: 400, y: 565, time: 0.5)
                == .follow(
                    KeyboardDismissalPosition(
                        offset: 105, fraction: 0.75, barFrame: Rect(x: 0, y: 517, width: 800, height: 48))))
        #expect(
            d.pointerUp(x: 400, y: 565, time: 1)
                == .dismiss(
                    KeyboardDismissalPosition(
                        offset: 105, fraction: 0.75, barFrame: Rect(x: 0, y: 517, width: 800, height: 48)),
                    .distance))
        rig.drain()
        #expect(rig.backend.hideRequests == [Fixture.osk])
        #expect(answers.results.withLock { $0.count } == 1)
        let outcome = answers.results.withLock { $0.first }
        guard case .success? = outcome else {
            Issue.record("the hide request did not succeed: \(String(describing: outcome))")
            return
        }
        #expect(!rig.manager.isVisible)
    }
}

/// The manager's answers to hide requests, from whichever thread it gives them.
final class HideAnswers: Sendable {
    let results = Mutex<[Result<Void, KeyboardControlError>]>([])
}
