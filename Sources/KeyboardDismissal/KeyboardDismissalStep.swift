import KeyboardAdapterCore

/// What the app does after one event given to ``KeyboardDismissal``.
public enum KeyboardDismissalStep: Sendable, Hashable {
    /// Nothing: the finger is above the keyboard's top edge, or no drag is followed.
    case none
    /// Move the bar (and the content that moves with it) to this position now.
    case follow(KeyboardDismissalPosition)
    /// The gesture was given up: move the bar back to its resting place from `from`, over
    /// `duration` seconds. The keyboard stays.
    case restore(from: KeyboardDismissalPosition, duration: Double)
    /// The keyboard was asked to hide (the request closure was called): hold the bar at this
    /// position until the keyboard's `willHide` moves it down, or ``KeyboardDismissal/hideFailed()``
    /// springs it back.
    case dismiss(KeyboardDismissalPosition, KeyboardDismissalTrigger)
    /// The keyboard is gone (as asked, or by itself in the middle of a drag): the bar leaves this
    /// position and follows the keyboard's own hide to the window's bottom. The rest of the drag,
    /// if any, is ignored.
    case keyboardHid(from: KeyboardDismissalPosition)
}

/// What decided a dismissal.
public enum KeyboardDismissalTrigger: String, Sendable, Hashable {
    /// Released past ``KeyboardDismissal/Configuration/dismissFraction`` of the keyboard's height.
    case distance
    /// Released while moving down at ``KeyboardDismissal/Configuration/flickVelocity`` or faster.
    case flick
    /// A tap outside the focused field and the keyboard.
    case tap
}
