import KeyboardAdapterCore

extension KeyboardDismissal {
    /// The thresholds of a dismissal. The defaults are those of chat apps on phones: released
    /// past half of the keyboard, or flicked down, the keyboard goes; otherwise it stays.
    public struct Configuration: Sendable, Hashable {
        /// The fraction of the keyboard's height (over the window) past which a release
        /// dismisses; 0.5 by default.
        public var dismissFraction: Double
        /// The downward speed, in pixels per second, at or above which a release below the
        /// keyboard's top edge dismisses however far the finger went; the same speed upwards
        /// restores however far. 1000 by default: a flick, not a slow drag.
        public var flickVelocity: Double
        /// How far back the release's speed is measured, in seconds (the finger's path over that
        /// time, so one late event does not decide); 0.1 by default.
        public var velocityInterval: Double
        /// How long the bar takes to spring back after an early release, in seconds; 0.25 by
        /// default, as a UIKit spring settles.
        public var restoreDuration: Double
        /// Whether a tap outside the focused field and the keyboard dismisses
        /// (MSSKeyboardManager's `becomeKeyboardDismissalResponder`); off by default, since a tap
        /// on a list usually means something else.
        public var dismissesOnTap: Bool
        /// How far a press may move, in pixels, and still be a tap; 10 by default.
        public var tapSlop: Double
        /// How long a press may last, in seconds, and still be a tap; 0.5 by default.
        public var maximumTapDuration: Double

        /// Creates a configuration; every value has the default described on its property.
        public init(
            dismissFraction: Double = 0.5, flickVelocity: Double = 1000, velocityInterval: Double = 0.1,
            restoreDuration: Double = 0.25, dismissesOnTap: Bool = false, tapSlop: Double = 10,
            maximumTapDuration: Double = 0.5
        ) {
            self.dismissFraction = dismissFraction
            self.flickVelocity = flickVelocity
            self.velocityInterval = velocityInterval
            self.restoreDuration = restoreDuration
            self.dismissesOnTap = dismissesOnTap
            self.tapSlop = tapSlop
            self.maximumTapDuration = maximumTapDuration
        }
    }
}
