/// The demo's colours as `0xRRGGBB`, and the input bar's size. The bar's colour is used nowhere
/// else on screen, and by neither keyboard, so a screen capture finds its rows by exact match.
enum Palette {
    /// The window background.
    static let background: UInt32 = 0xF4F6FA
    /// Headings and body text.
    static let text: UInt32 = 0x1F2430
    /// Secondary text (status lines).
    static let secondaryText: UInt32 = 0x5A6172
    /// The input bar: the whole 48-px band, edge to edge.
    static let bar: UInt32 = 0x2E6BD8
    /// The text field inside the bar.
    static let field: UInt32 = 0xFFFFFF
    /// The placeholder in the text field.
    static let placeholder: UInt32 = 0x8A90A0
    /// The line under the heading.
    static let rule: UInt32 = 0xC8CCD4
}

/// The input bar's geometry, in window pixels.
enum BarMetrics {
    /// The bar's height.
    static let height = 48
    /// The margin between the bar's edges and its text field: the columns of pure bar colour.
    static let fieldMargin = 12
    /// The rows of bar colour above and below the text field.
    static let fieldInset = 8
}
