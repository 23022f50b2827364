import KeyboardAdapterCore

/// The monitors of the X screen (RandR monitors), and which one a keyboard is on.
struct MonitorLayout: Sendable, Hashable {
    /// The monitors; never empty (the whole screen, named `screen`, when RandR tells nothing).
    private(set) var outputs: [Output]

    /// A layout of `monitors`, or of the whole `screen` when there are none.
    init(monitors: [Output], screen: Rect) {
        outputs = monitors.isEmpty ? [Output(name: "screen", frame: screen)] : monitors
    }

    /// The monitor `frame` overlaps most. A frame on no monitor (sliding in from below the
    /// screen) belongs to the nearest one, so that its slide is judged against the right edge.
    func output(for frame: Rect) -> Output {
        var best = outputs[0]
        var bestArea = -1
        for output in outputs {
            let area = output.frame.intersection(frame)?.area ?? 0
            if area > bestArea {
                best = output
                bestArea = area
            }
        }
        if bestArea > 0 { return best }
        return outputs.min { distance($0.frame, frame) < distance($1.frame, frame) } ?? best
    }

    /// How far apart two rectangles are (0 when they touch or overlap), along the longer axis gap.
    private func distance(_ a: Rect, _ b: Rect) -> Int {
        let dx = max(0, max(a.x - b.maxX, b.x - a.maxX))
        let dy = max(0, max(a.y - b.maxY, b.y - a.maxY))
        return dx * dx + dy * dy
    }
}
