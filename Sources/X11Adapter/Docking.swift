import KeyboardBackendInterface

/// Space a window reserves along the screen edges (`_NET_WM_STRUT_PARTIAL` or `_NET_WM_STRUT`),
/// once validated against the screen.
struct Strut: Sendable, Hashable {
    /// The reserved edge (the widest reservation when a window reserves several).
    var edge: Edge
    /// The reserved thickness in pixels.
    var size: Int
}

extension Strut {
    /// Validates raw strut items against a `width` × `height` screen. Returns nil for an absent,
    /// empty or impossible strut: matchbox-keyboard writes an `int[12]` as longs on 64-bit, which
    /// shows up as huge or inconsistent values and must not count as docking.
    ///
    /// - Parameters:
    ///   - partial: the 12 items of `_NET_WM_STRUT_PARTIAL` (left, right, top, bottom, then a
    ///     start/end pair per edge), if any.
    ///   - plain: the 4 items of `_NET_WM_STRUT`, used when there is no valid partial strut.
    init?(partial: [UInt]?, plain: [UInt]?, width: Int, height: Int) {
        if let partial, let strut = Strut.validated(partial, count: 12, width: width, height: height) {
            self = strut
        } else if let plain, let strut = Strut.validated(plain, count: 4, width: width, height: height) {
            self = strut
        } else {
            return nil
        }
    }

    private static func validated(_ items: [UInt], count: Int, width: Int, height: Int) -> Strut? {
        guard items.count == count, width > 0, height > 0 else { return nil }
        // Every item is a pixel count or coordinate on this screen; anything larger is garbage.
        let limit = UInt(max(width, height))
        guard items.allSatisfy({ $0 <= limit }) else { return nil }
        let sizes = items.prefix(4).map { Int($0) }
        let (left, right, top, bottom) = (sizes[0], sizes[1], sizes[2], sizes[3])
        guard left + right <= width, top + bottom <= height else { return nil }
        if count == 12 {
            // Each reserved edge's start/end must be an ordered range on that edge.
            let ranges = [(left, 4, height), (right, 6, height), (top, 8, width), (bottom, 10, width)]
            for (size, index, span) in ranges where size > 0 {
                let start = Int(items[index])
                let end = Int(items[index + 1])
                guard start <= end, end < span else { return nil }
            }
        }
        let candidates: [(Edge, Int)] = [(.bottom, bottom), (.top, top), (.left, left), (.right, right)]
        guard let widest = candidates.max(by: { $0.1 < $1.1 }), widest.1 > 0 else { return nil }
        return Strut(edge: widest.0, size: widest.1)
    }
}

/// The docking verdict for one keyboard frame.
struct DockingVerdict: Sendable, Hashable {
    /// Whether the keyboard is docked.
    var isDocked: Bool
    /// The docked edge, when docked and known.
    var edge: Edge?

    /// Judges docking: a DOCK window type or a valid strut says docked; otherwise a frame that
    /// touches an edge of the output and spans its full width or height is docked there.
    static func judge(isDockType: Bool, strut: Strut?, frame: Rect, output: Rect) -> DockingVerdict {
        if let strut { return DockingVerdict(isDocked: true, edge: strut.edge) }
        let spanned = frame.dockedEdge(in: output)
        if isDockType {
            // A docked window sliding in or out is partly off-screen: the edge it reaches is its edge.
            return DockingVerdict(isDocked: true, edge: spanned ?? frame.touchedEdge(of: output))
        }
        return DockingVerdict(isDocked: spanned != nil, edge: spanned)
    }
}
