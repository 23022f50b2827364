/// Space the display server reserves along an output's edge that no keyboard is known to fill: a
/// docked keyboard that was up before watching started, or a panel (a bar, a dock). Geometry alone
/// cannot tell the two apart, and nothing else said which, so it is reported as what it is, not as
/// a keyboard (`kbwatch --state` lists it under `reserved`).
public struct ReservedStrip: Sendable, Hashable, CustomStringConvertible {
    /// The output whose edge it lies along.
    public var output: Output
    /// The edge.
    public var edge: Edge
    /// The strip, in the display server's global (logical) coordinates: the whole edge, as deep as
    /// the space reserved.
    public var frame: Rect

    /// Creates a strip.
    public init(output: Output, edge: Edge, frame: Rect) {
        self.output = output
        self.edge = edge
        self.frame = frame
    }

    /// `HEADLESS-1 bottom 0,550 1280x250`.
    public var description: String { "\(output.name) \(edge.rawValue) \(frame)" }
}
