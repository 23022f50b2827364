/// The six keyboard events, named as UIKit names its keyboard notifications.
public enum KeyboardEvent: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// A keyboard starts to appear. Its `endFrame` is the frame known so far.
    case willShow
    /// A keyboard has appeared and its frame has settled.
    case didShow
    /// A keyboard starts to disappear.
    case willHide
    /// A keyboard has disappeared.
    case didHide
    /// A visible keyboard starts to move or resize.
    case willChangeFrame
    /// A visible keyboard has settled at a new frame.
    case didChangeFrame

    /// True for the three `will` events.
    public var isWill: Bool { self == .willShow || self == .willHide || self == .willChangeFrame }

    /// The `did` event that completes this `will` event, or the event itself for a `did` event.
    public var completion: KeyboardEvent {
        switch self {
        case .willShow: .didShow
        case .willHide: .didHide
        case .willChangeFrame: .didChangeFrame
        default: self
        }
    }

    /// The raw name, such as `willShow`.
    public var description: String { rawValue }
}

/// How a keyboard's transition moved over time, as measured from its frames.
public enum AnimationCurve: String, Sendable, Hashable, Codable, CaseIterable {
    /// The transition was instantaneous: no intermediate frame was seen.
    case none
    /// Constant speed.
    case linear
    /// Slow start.
    case easeIn
    /// Slow end.
    case easeOut
    /// Slow start and slow end.
    case easeInOut
    /// The transition moved, but too few frames were seen (or they fit no curve) to tell how.
    case unknown
}
