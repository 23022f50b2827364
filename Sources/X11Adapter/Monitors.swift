import KeyboardBackendInterface

/// The monitors of the X screen (RandR monitors), and which one a keyboard is on.
struct MonitorLayout: Sendable, Hashable {
    /// The monitors; never empty (the whole screen, named `screen`, when RandR tells nothing).
    private(set) var outputs: [Output]

    /// A layout of `monitors`, or of the whole `screen` when there are none.
    init(monitors: [Output], screen: Rect) {
        outputs = monitors.isEmpty ? [Output(name: "screen", frame: screen)] : monitors
    }

    /// The monitor `frame` overlaps most. A frame on no monitor (sliding in from below the
    /// screen) belongs to the monitor whose edge it lies along, the one it shares the longest
    /// stretch of x (or y) with, so that its slide is judged against the right edge.
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
        return outputs.max { sharedSpan($0.frame, frame) < sharedSpan($1.frame, frame) } ?? best
    }

    /// The longer of the two rectangles' common stretches along x and along y.
    private func sharedSpan(_ a: Rect, _ b: Rect) -> Int {
        let alongX = max(0, min(a.maxX, b.maxX) - max(a.x, b.x))
        let alongY = max(0, min(a.maxY, b.maxY) - max(a.y, b.y))
        return max(alongX, alongY)
    }
}
