import KeyboardBackendInterface

/// A docked keyboard inferred from an output's usable area: the edge it reserves and its frame.
struct DockedKeyboard: Sendable, Hashable {
    /// The output edge the keyboard is docked to.
    var edge: Edge
    /// Its frame in global logical pixels.
    var frame: Rect
    /// The frame is all the space reserved at the edge, which may also hold panels.
    var isUpperBound = false
}

/// Tells keyboards from panels by how an output's usable area shrinks. Pure: no Wayland calls.
///
/// Per edge, the baseline is the smallest inset ever seen: panels (swaybar, docks) are there
/// from the start or stay put, keyboards come and go. A keyboard is the growth of one edge's
/// inset over its baseline, placed at the output's outer edge: keyboards sit in higher layers
/// (top, overlay) than panels (bottom), and the compositor stacks exclusive zones from the
/// highest layer outwards, so the keyboard's reserved strip is the outermost one.
///
/// Limits, stated where they come from:
/// - Only docked keyboards (exclusive zone > 0) shrink the usable area; floating ones are unseen.
/// - The height is the reserved space (exclusive zone plus margin), not the surface's height.
/// - A keyboard already visible when watching starts counts as baseline until it first hides.
struct InsetClassifier: Sendable {
    /// The smallest inset seen per edge, nil before the first usable area.
    private(set) var baseline: EdgeInsets?

    /// Creates a classifier with no baseline yet.
    init() {}

    /// Takes `insets` as the baseline, whatever was learnt before: everything reserved now is a
    /// panel (used while a newly plugged output's panels are still arriving).
    mutating func adopt(_ insets: EdgeInsets) {
        baseline = insets
    }

    /// The insets of `usable` inside an output of `size` (usable is relative to the output's origin).
    static func insets(usable: Rect, outputWidth: Int, outputHeight: Int) -> EdgeInsets {
        EdgeInsets(
            top: max(0, usable.y), bottom: max(0, outputHeight - usable.maxY),
            left: max(0, usable.x), right: max(0, outputWidth - usable.maxX))
    }

    /// Feeds one usable area's insets and returns the docked keyboards they imply on `output`
    /// (its global logical frame), at most one per edge, bottom first.
    mutating func classify(_ insets: EdgeInsets, output: Rect) -> [DockedKeyboard] {
        var base = baseline ?? insets
        for edge in Edge.allCases { base[edge] = min(base[edge], insets[edge]) }
        baseline = base
        return Self.keyboards(insets, baseline: base, output: output)
    }

    /// The keyboards implied by `insets` over `baseline`, without learning from them (used when
    /// only the output moved or resized).
    static func keyboards(_ insets: EdgeInsets, baseline: EdgeInsets, output: Rect) -> [DockedKeyboard] {
        [Edge.bottom, .top, .left, .right].compactMap { edge in
            let growth = insets[edge] - baseline[edge]
            guard growth > 0 else { return nil }
            return DockedKeyboard(edge: edge, frame: frame(growth: growth, at: edge, of: output))
        }
    }

    /// A strip `growth` pixels deep along `edge` of `output`, spanning the whole edge.
    static func frame(growth: Int, at edge: Edge, of output: Rect) -> Rect {
        switch edge {
        case .bottom: Rect(x: output.x, y: output.maxY - growth, width: output.width, height: growth)
        case .top: Rect(x: output.x, y: output.y, width: output.width, height: growth)
        case .left: Rect(x: output.x, y: output.y, width: growth, height: output.height)
        case .right: Rect(x: output.maxX - growth, y: output.y, width: growth, height: output.height)
        }
    }
}
