import KeyboardAdapterCore

/// Dismisses the keyboard the way chat apps do: the app's content dragged down across the
/// keyboard takes the input bar with it and, released far enough or fast enough, hides the
/// keyboard (ARKeyboardControl's `addKeyboardPanning`, Typist's `toolbar(scrollView:)`); a tap
/// outside the focused field hides it too, when asked (MSSKeyboardManager's
/// `becomeKeyboardDismissalResponder`).
///
/// The app feeds it its own pointer or touch events, in its window's coordinates with their
/// times, and the layout (``update(_:)``) whenever the bar or the keyboard moves; each call
/// returns what to do with the bar as a ``KeyboardDismissalStep``. While the finger is above the
/// keyboard's top edge nothing happens; below it the bar's bottom edge follows the finger down, to
/// the window's bottom at most. On release it dismisses (past
/// ``Configuration/dismissFraction``, or on a flick) by calling the injected request, or
/// restores. It never moves the keyboard's window: the keyboard hides as it does on its own, and
/// the app follows its `willHide` as usual.
///
/// A keyboard that moves by itself in the middle of a drag (a new frame given to ``update(_:)``)
/// changes the edge the finger is measured from: the bar is placed again at once for the same
/// finger, back at rest when the finger is now above the new edge. A keyboard that hides by
/// itself (or stops covering the window's bottom) ends the drag: ``KeyboardDismissalStep/keyboardHid(from:)``
/// and the rest of that press is ignored.
///
/// Use it from the app's UI thread, the one its pointer events arrive on: it is a plain class
/// confined to its caller, holds no lock, and calls the app's closures on that thread, from inside
/// the call that decided to.
public final class KeyboardDismissal {
    /// The thresholds in force.
    public let configuration: Configuration
    /// The layout last given; nil until the first ``update(_:)``.
    public private(set) var layout: KeyboardDismissalLayout?
    private let availabilityNow: () -> KeyboardDismissalAvailability
    private let requestHide: () -> Void
    private var phase = Phase.idle

    private enum Phase {
        /// No press, or a press that is not a dismissal (it began on the keyboard, or dismissal
        /// is unavailable).
        case idle
        /// A press the helper follows.
        case pressing(Press)
        /// The keyboard went away in the middle of the drag: the rest of the press is ignored.
        case abandoned
        /// The keyboard was asked to hide; the bar is held here until it goes.
        case dismissing(KeyboardDismissalPosition)
    }

    private struct Press {
        var startX: Double, startY: Double, startTime: Double
        var lastY: Double
        var samples: KeyboardDragSamples
        /// The farthest the finger got from where it went down.
        var maximumDistance = 0.0
        /// Below the keyboard's top edge now.
        var isFollowing = false
        /// Below it at some time: such a press is a drag, never a tap.
        var hasFollowed = false
    }

    /// Creates a helper that asks `availability` whether the keyboard can be hidden when a press
    /// begins (ignoring presses while it cannot) and calls `requestHide` to dismiss. The request
    /// is made from inside ``pointerUp(x:y:time:)``: it must not call back into the helper before
    /// returning (`KeyboardManager.hideKeyboard(completion:)` may complete at once on the calling
    /// thread): hand its outcome to the UI loop, and call ``hideFailed()`` there on a failure.
    public init(
        configuration: Configuration = Configuration(),
        availability: @escaping () -> KeyboardDismissalAvailability,
        requestHide: @escaping () -> Void
    ) {
        self.configuration = configuration
        availabilityNow = availability
        self.requestHide = requestHide
    }

    /// Creates a helper for `manager`'s keyboards: ``KeyboardAdapterCore/KeyboardManager/dismissalAvailability`` before
    /// each press, and `manager.hideKeyboard(completion: onHideResult)` to dismiss. `onHideResult`
    /// runs on the manager's loop thread (a service replied) or at once on the UI thread (no
    /// keyboard visible): hop to the UI thread before calling ``hideFailed()``.
    public convenience init(
        manager: KeyboardManager, configuration: Configuration = Configuration(),
        onHideResult: @escaping @Sendable (Result<Void, KeyboardControlError>) -> Void
    ) {
        self.init(
            configuration: configuration, availability: { manager.dismissalAvailability },
            requestHide: { manager.hideKeyboard(completion: onHideResult) })
    }

    /// Whether a gesture can dismiss the keyboard now, and how: ask before turning the gesture on.
    public var availability: KeyboardDismissalAvailability { availabilityNow() }

    /// True while the bar follows a finger below the keyboard's top edge.
    public var isFollowing: Bool {
        if case .pressing(let press) = phase { return press.isFollowing }
        return false
    }

    /// True from a dismissal until the keyboard is gone or ``hideFailed()``.
    public var isDismissing: Bool {
        if case .dismissing = phase { return true }
        return false
    }

    // MARK: - Layout

    /// The bar, the focused field or the keyboard moved (the app's layout, or a keyboard event).
    /// In the middle of a drag the bar is placed again for the new keyboard edge; a keyboard that
    /// is gone ends the drag or completes the dismissal (``KeyboardDismissalStep/keyboardHid(from:)``).
    public func update(_ layout: KeyboardDismissalLayout) -> KeyboardDismissalStep {
        let old = self.layout
        self.layout = layout
        switch phase {
        case .dismissing(let held) where layout.travel == 0:
            phase = .idle
            return .keyboardHid(from: held)
        case .pressing(var press) where press.isFollowing:
            guard layout.travel > 0 else {
                phase = .abandoned
                return .keyboardHid(from: old.map { position(of: press, in: $0) } ?? layout.position(offset: 0))
            }
            press.isFollowing = offset(of: press.lastY, in: layout) > 0
            phase = .pressing(press)
            return .follow(position(of: press, in: layout))
        default:
            return .none
        }
    }

    // MARK: - Pointer events

    /// A finger or button went down at (`x`, `y`) in the window, at `time` (seconds, any
    /// monotonic clock). A press on the keyboard itself, while dismissing, or while the keyboard
    /// cannot be hidden is ignored. A press whose release never came is given up (restored).
    public func pointerDown(x: Double, y: Double, time: Double) -> KeyboardDismissalStep {
        let step = pointerCancelled()
        guard case .idle = phase, let layout, availability.isAvailable,
            !(layout.keyboard.map { Self.contains($0, x: x, y: y) } ?? false)
        else {
            if case .dismissing = phase { return step }
            phase = .idle
            return step
        }
        phase = .pressing(
            Press(
                startX: x, startY: y, startTime: time, lastY: y,
                samples: KeyboardDragSamples(y: y, time: time, interval: configuration.velocityInterval)))
        return step
    }

    /// The finger moved to (`x`, `y`) at `time`: the bar follows it below the keyboard's top edge,
    /// and goes back to rest (one `follow` at offset 0) when it comes back above.
    public func pointerMoved(x: Double, y: Double, time: Double) -> KeyboardDismissalStep {
        guard case .pressing(var press) = phase, let layout else { return .none }
        let wasFollowing = press.isFollowing
        move(&press, x: x, y: y, time: time, in: layout)
        phase = .pressing(press)
        return press.isFollowing || wasFollowing ? .follow(position(of: press, in: layout)) : .none
    }

    /// The finger lifted at (`x`, `y`) at `time`. Below the keyboard's top edge: a flick down
    /// (``Configuration/flickVelocity``) dismisses, a flick up restores, else the distance decides
    /// (``Configuration/dismissFraction``). A tap outside the focused field and the keyboard
    /// dismisses when ``Configuration/dismissesOnTap`` is set. To dismiss, the request closure is
    /// called before this returns.
    public func pointerUp(x: Double, y: Double, time: Double) -> KeyboardDismissalStep {
        guard case .pressing(var press) = phase, let layout else {
            if case .abandoned = phase { phase = .idle }
            return .none
        }
        move(&press, x: x, y: y, time: time, in: layout)
        phase = .idle
        let here = position(of: press, in: layout)
        if press.isFollowing {
            let velocity = press.samples.velocity
            if velocity >= configuration.flickVelocity { return dismiss(at: here, .flick) }
            if velocity > -configuration.flickVelocity, here.fraction >= configuration.dismissFraction {
                return dismiss(at: here, .distance)
            }
            return .restore(from: here, duration: configuration.restoreDuration)
        }
        if isTap(press, endingAt: time, in: layout) { return dismiss(at: layout.position(offset: 0), .tap) }
        return .none
    }

    /// The toolkit took the press away (a grab, the window lost the pointer): a bar pulled down
    /// goes back to rest; nothing is dismissed.
    public func pointerCancelled() -> KeyboardDismissalStep {
        switch phase {
        case .pressing(let press):
            phase = .idle
            guard press.isFollowing, let layout else { return .none }
            return .restore(from: position(of: press, in: layout), duration: configuration.restoreDuration)
        case .abandoned:
            phase = .idle
            return .none
        case .idle, .dismissing:
            return .none
        }
    }

    /// The hide request failed (its completion said so): the held bar springs back, and the
    /// keyboard stays. Nothing happens when no dismissal is pending.
    public func hideFailed() -> KeyboardDismissalStep {
        guard case .dismissing(let held) = phase else { return .none }
        phase = .idle
        return held.offset > 0 ? .restore(from: held, duration: configuration.restoreDuration) : .none
    }

    // MARK: - Deciding

    private func move(_ press: inout Press, x: Double, y: Double, time: Double, in layout: KeyboardDismissalLayout) {
        press.lastY = y
        press.samples.add(y: y, time: time)
        let dx = x - press.startX
        let dy = y - press.startY
        press.maximumDistance = max(press.maximumDistance, (dx * dx + dy * dy).squareRoot())
        press.isFollowing = offset(of: y, in: layout) > 0
        if press.isFollowing { press.hasFollowed = true }
    }

    /// How far below the keyboard's top edge `y` is (negative above); 0 without a keyboard over
    /// the window.
    private func offset(of y: Double, in layout: KeyboardDismissalLayout) -> Double {
        guard layout.travel > 0, let keyboard = layout.keyboard else { return 0 }
        return y - Double(keyboard.y)
    }

    private func position(of press: Press, in layout: KeyboardDismissalLayout) -> KeyboardDismissalPosition {
        layout.position(offset: press.isFollowing ? offset(of: press.lastY, in: layout) : 0)
    }

    private func isTap(_ press: Press, endingAt time: Double, in layout: KeyboardDismissalLayout) -> Bool {
        guard configuration.dismissesOnTap, !press.hasFollowed, layout.keyboard != nil,
            press.maximumDistance <= configuration.tapSlop, time - press.startTime <= configuration.maximumTapDuration
        else { return false }
        return !(layout.focusedField.map { Self.contains($0, x: press.startX, y: press.startY) } ?? false)
    }

    private func dismiss(
        at position: KeyboardDismissalPosition, _ trigger: KeyboardDismissalTrigger
    ) -> KeyboardDismissalStep {
        phase = .dismissing(position)
        requestHide()
        return .dismiss(position, trigger)
    }

    private static func contains(_ rect: Rect, x: Double, y: Double) -> Bool {
        x >= Double(rect.x) && x < Double(rect.maxX) && y >= Double(rect.y) && y < Double(rect.maxY)
    }
}

/// Confined to the UI thread that feeds it: never shared across threads.
@available(*, unavailable)
extension KeyboardDismissal: Sendable {}
