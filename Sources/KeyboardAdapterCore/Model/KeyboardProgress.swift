#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where timing values on an update come from.
public enum TimingSource: String, Sendable, Hashable, CaseIterable {
    /// Measured on this transition's own frames (`did` events).
    case measured
    /// Predicted from this keyboard's earlier transitions of the same kind (`will` events).
    case predicted
    /// Not known: the first transition of its kind, or a kind nothing predicts (frame changes).
    case unknown
}

/// One intermediate frame of a keyboard's show, hide or move, between its `will` and its `did`
/// event (Android's `WindowInsetsAnimation.Callback.onProgress`, ARKeyboardControl's panning): an
/// app follows the keyboard frame by frame with it. Delivered only when the keyboard moved.
public struct KeyboardProgress: Sendable, Hashable {
    /// The transition under way: `willShow`, `willHide` or `willChangeFrame`.
    public var transition: KeyboardEvent
    /// The keyboard's state now; `state.frame` is where it is at this moment.
    public var state: KeyboardState
    /// Where the transition began (as on its `will` event).
    public var beginFrame: Rect
    /// Where the transition is going, as on its `will` event (see ``isEndFramePredicted``).
    public var endFrame: Rect
    /// True when ``endFrame`` is a predicted destination (a docked slide); false when it is only
    /// the frame seen when the transition began (a move whose end nobody can know).
    public var isEndFramePredicted: Bool
    /// How far the keyboard has come from ``beginFrame`` to ``endFrame``, from 0 to 1; nil when
    /// the destination is not known.
    public var fraction: Double?
    /// Seconds since the transition's first frame.
    public var elapsed: Double
    /// The backend that observed it.
    public var backend: String
    /// Wall-clock time at which it was produced.
    public var timestamp: Date

    /// Creates a progress value.
    public init(
        transition: KeyboardEvent, state: KeyboardState, beginFrame: Rect, endFrame: Rect,
        isEndFramePredicted: Bool, fraction: Double?, elapsed: Double, backend: String, timestamp: Date = Date()
    ) {
        self.transition = transition
        self.state = state
        self.beginFrame = beginFrame
        self.endFrame = endFrame
        self.isEndFramePredicted = isEndFramePredicted
        self.fraction = fraction
        self.elapsed = elapsed
        self.backend = backend
        self.timestamp = timestamp
    }

    /// The keyboard.
    public var keyboard: KeyboardIdentity { state.keyboard }
    /// Where the keyboard is now.
    public var frame: Rect { state.frame }
}
