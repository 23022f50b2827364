import KeyboardAdapterCore

/// Where things are in the app's window, in the window's own coordinates (origin at its top-left
/// corner, as the app's pointer events are): what a dismissal follows a drag against.
public struct KeyboardDismissalLayout: Sendable, Hashable {
    /// The input bar at rest, on the keyboard's top edge: the frame a drag moves down from.
    public var bar: Rect
    /// The focused text field: a tap there keeps the keyboard (nil: none is focused).
    public var focusedField: Rect?
    /// The keyboard (``/KeyboardAdapterCore/WindowGeometry/keyboardFrame(_:inWindow:)``); nil while none is visible.
    public var keyboard: Rect?
    /// The window's height: the bar never follows a finger below the window's bottom edge.
    public var windowHeight: Int

    /// Creates a layout from frames already in the window's coordinates.
    public init(bar: Rect, focusedField: Rect?, keyboard: Rect?, windowHeight: Int) {
        self.bar = bar
        self.focusedField = focusedField
        self.keyboard = keyboard
        self.windowHeight = windowHeight
    }

    /// Creates a layout from the bar and field in the window's coordinates and the keyboard's
    /// frame in global coordinates (`KeyboardUpdate.endFrame`, `KeyboardManager.currentFrame`),
    /// with the window's frame in global coordinates.
    public init(bar: Rect, focusedField: Rect?, globalKeyboard: Rect?, window: Rect) {
        self.init(
            bar: bar, focusedField: focusedField,
            keyboard: globalKeyboard.map { WindowGeometry.keyboardFrame($0, inWindow: window) },
            windowHeight: window.height)
    }

    /// How far the bar can follow a finger down: from the keyboard's top edge to the keyboard's
    /// bottom or the window's, whichever comes first; 0 when no keyboard covers the window's bottom.
    var travel: Int {
        guard let keyboard, keyboard.y < windowHeight else { return 0 }
        return max(0, min(keyboard.maxY, windowHeight) - keyboard.y)
    }

    /// The bar's place `offset` pixels below its resting one, with the fraction of the travel.
    func position(offset: Double) -> KeyboardDismissalPosition {
        let travel = Double(travel)
        let clamped = max(0, min(offset, travel))
        return KeyboardDismissalPosition(
            offset: clamped, fraction: travel > 0 ? clamped / travel : 0,
            barFrame: bar.offsetBy(dx: 0, dy: Int(clamped.rounded())))
    }
}

/// How far the bar (and whatever the app moves with it) is pulled down from its resting place.
public struct KeyboardDismissalPosition: Sendable, Hashable, CustomStringConvertible {
    /// Pixels below the resting place, between 0 and the keyboard's height over the window.
    public var offset: Double
    /// The offset as a fraction of the keyboard's height over the window: 0 at rest, 1 at the
    /// window's bottom (or the keyboard's, when the keyboard ends above it).
    public var fraction: Double
    /// The bar's frame at that offset, in the window's coordinates (rounded to a whole pixel).
    public var barFrame: Rect

    /// Creates a position.
    public init(offset: Double, fraction: Double, barFrame: Rect) {
        self.offset = offset
        self.fraction = fraction
        self.barFrame = barFrame
    }

    /// `offset 120.0 (0.5)`.
    public var description: String { "offset \(offset) (\(fraction))" }
}
