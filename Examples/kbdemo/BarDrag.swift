import CXft
import KeyboardAdapter

/// The chat-app dismissal in the demo: the library's ``KeyboardDismissal`` fed with the window's
/// pointer events, and what its steps do to the bar. The bar's place is the keyboard's inset
/// (``BarMotion`` in `DemoApp`) less the pull of a drag, which follows the pointer, springs back,
/// or is held until the keyboard hides; then the bar goes down from where the drag left it, with
/// the keyboard, and never back up while the keyboard slides out.
final class BarDrag {
    /// The helper; nil when keyboards are not followed.
    private let dismissal: KeyboardDismissal?
    /// How far a drag pulls the bar below the keyboard's edge.
    private var pull = BarMotion(inset: 0)
    /// The highest the bar may be drawn while the keyboard hides after a dismissal.
    private var ceiling: Int?
    /// What was last said about how a press can dismiss, so that it is said once per change.
    private var saidAvailability: KeyboardDismissalAvailability?

    /// A drag that asks `manager` to hide its keyboard and posts the answer to `mailbox`.
    init(manager: KeyboardManager?, mailbox: Mailbox) {
        dismissal = manager.map { manager in
            KeyboardDismissal(manager: manager, configuration: .init(dismissesOnTap: true)) { result in
                mailbox.post(.hideAnswered(result))
            }
        }
    }

    /// The bar's drawn inset for a keyboard inset of `barInset`, at `now`. While the keyboard
    /// hides after a dismissal the bar only goes down: a keyboard's progress frames that follow a
    /// `willHide` (whose end the bar may already have jumped to) never bring it back up.
    func inset(forBar barInset: Int, at now: Double) -> Int {
        let drawn = max(0, min(barInset, ceiling ?? barInset) - pull.inset(at: now))
        if ceiling != nil { ceiling = drawn }
        return drawn
    }

    /// True while the bar springs back.
    func isMoving(at now: Double) -> Bool { pull.isMoving(at: now) }

    /// A button press, a motion with the button held, or a release of the first button.
    func pointer(_ kind: Int32, x: Int32, y: Int32, time: UInt, barInset: Int, now: Double) {
        guard let dismissal else { return }
        let (x, y, time) = (Double(x), Double(y), Double(time) / 1000)
        switch kind {
        case ButtonPress:
            // How the keyboard would be hidden (or why it cannot be), said when it changes.
            let availability = dismissal.availability
            if availability != saidAvailability {
                say("dismissal: \(availability)")
                saidAvailability = availability
            }
            apply(dismissal.pointerDown(x: x, y: y, time: time), barInset: barInset, now: now)
        case MotionNotify: apply(dismissal.pointerMoved(x: x, y: y, time: time), barInset: barInset, now: now)
        case ButtonRelease: apply(dismissal.pointerUp(x: x, y: y, time: time), barInset: barInset, now: now)
        default: break
        }
    }

    /// The keyboards or the window changed: `layout` is where things are now (nil before the
    /// window is placed), `barInset` where the bar is before it moves for the change.
    func layoutChanged(_ layout: KeyboardDismissalLayout?, barInset: Int, now: Double) {
        guard let dismissal, let layout else { return }
        apply(dismissal.update(layout), barInset: barInset, now: now)
    }

    /// A keyboard event: a hide that completed, or a keyboard that shows, ends the ceiling.
    func keyboardEvent(_ event: KeyboardEvent) {
        if event == .didHide || event == .willShow { ceiling = nil }
    }

    /// The manager answered the hide request.
    func hideAnswered(_ result: Result<Void, KeyboardControlError>, barInset: Int, now: Double) {
        guard case .failure(let error) = result, let dismissal else { return say("dismissal: hide accepted") }
        say("dismissal: hide failed: \(error)")
        apply(dismissal.hideFailed(), barInset: barInset, now: now)
    }

    private func apply(_ step: KeyboardDismissalStep, barInset: Int, now: Double) {
        switch step {
        case .none:
            break
        case .follow(let position):
            pull.jump(to: Self.pixels(position))
        case .restore(let position, let duration):
            say("dismissal: restore from offset \(Self.pixels(position)) over \(duration) s")
            pull.jump(to: Self.pixels(position))
            pull.move(to: 0, at: now, duration: duration, curve: .easeOut)
        case .dismiss(let position, let trigger):
            say("dismissal: \(trigger.rawValue) at offset \(Self.pixels(position)), hiding the keyboard")
            pull.jump(to: Self.pixels(position))
        case .keyboardHid(let position):
            // From here the bar follows the keyboard's hide, starting where the drag left it.
            say("dismissal: keyboard hidden with the bar at offset \(Self.pixels(position))")
            ceiling = max(0, barInset - pull.inset(at: now))
            pull.jump(to: 0)
        }
    }

    private static func pixels(_ position: KeyboardDismissalPosition) -> Int { Int(position.offset.rounded()) }
}
