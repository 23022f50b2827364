/// Pure helpers that express a keyboard frame in an app window's terms (ARKeyboardControl's
/// `keyboardFrameInView`, Android's IME insets). All inputs are in the same global logical
/// coordinates as `KeyboardUpdate.endFrame`.
public enum WindowGeometry {
    /// The keyboard frame in the window's own coordinates (origin at the window's top-left corner).
    /// The result may lie partly or wholly outside the window.
    public static func keyboardFrame(_ keyboard: Rect, inWindow window: Rect) -> Rect {
        keyboard.offsetBy(dx: -window.x, dy: -window.y)
    }

    /// The part of the window the keyboard covers, in the window's own coordinates; nil when it
    /// covers nothing.
    public static func coveredRect(by keyboard: Rect, inWindow window: Rect) -> Rect? {
        keyboard.intersection(window).map { $0.offsetBy(dx: -window.x, dy: -window.y) }
    }

    /// The insets the window should keep free so that nothing it draws lies under the keyboard.
    ///
    /// The covered part is attributed to the window edge it is closest to: a keyboard covering
    /// the bottom of the window gives a bottom inset equal to the covered height, and so on. A
    /// keyboard that covers nothing (or lies on another output) gives zero insets. A covered part
    /// that touches no window edge (a small floating keyboard in the middle) is attributed to the
    /// nearer of the bottom and top edges, as an app would move its content away from it.
    public static func insets(for keyboard: Rect, inWindow window: Rect) -> EdgeInsets {
        guard let covered = keyboard.intersection(window) else { return .zero }
        let fullWidth = covered.x <= window.x && covered.maxX >= window.maxX
        let fullHeight = covered.y <= window.y && covered.maxY >= window.maxY
        var insets = EdgeInsets.zero
        if fullWidth || !fullHeight {
            // Horizontal band (or a patch): keep it free at the bottom or the top.
            let fromBottom = window.maxY - covered.y
            let fromTop = covered.maxY - window.y
            if covered.maxY >= window.maxY || fromBottom <= fromTop {
                insets.bottom = fromBottom
            } else {
                insets.top = fromTop
            }
        } else {
            // Vertical band spanning the window's height: keep it free on the left or the right.
            let fromRight = window.maxX - covered.x
            let fromLeft = covered.maxX - window.x
            if covered.maxX >= window.maxX || fromRight <= fromLeft {
                insets.right = fromRight
            } else {
                insets.left = fromLeft
            }
        }
        return insets
    }

    /// The insets for several keyboards at once (an on-screen keyboard and an input-method panel):
    /// the largest inset per edge.
    public static func insets(for keyboards: [Rect], inWindow window: Rect) -> EdgeInsets {
        keyboards.reduce(into: EdgeInsets.zero) { result, frame in
            let one = insets(for: frame, inWindow: window)
            for edge in Edge.allCases { result[edge] = max(result[edge], one[edge]) }
        }
    }
}
