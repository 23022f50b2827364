/// Pure measurement of a transition's timing curve from the frames seen during it.
enum CurveFit {
    /// One frame seen at one time.
    struct Sample: Sendable, Hashable {
        var time: Double
        var frame: Rect
    }

    /// The fewest samples (begin and end included) from which a curve is claimed.
    static let minimumSamples = 4
    /// The largest root-mean-square distance, in progress units (0...1), for a curve to be claimed.
    static let tolerance = 0.06

    /// The curve that the samples follow: `.none` for an instantaneous transition (no frame in
    /// between), `.unknown`
    /// when there are too few samples or none of the known curves fits.
    static func classify(_ samples: [Sample]) -> AnimationCurve {
        // No frame between the first and the last: it jumped, whatever time passed between them.
        guard samples.count > 2, let first = samples.first, let last = samples.last, last.time > first.time else {
            return .none
        }
        let total = distance(first.frame, last.frame)
        guard samples.count >= minimumSamples, total > 0 else { return .unknown }
        let inner = samples.dropFirst().dropLast().map { sample in
            (time: sample.time, progress: 1 - Double(distance(sample.frame, last.frame)) / Double(total))
        }
        var best: (AnimationCurve, Double) = (.unknown, .infinity)
        for (curve, function) in candidates {
            // The motion may have begun before its first frame was seen: a keyboard mapped below
            // the screen after its animation clock started (onboard's slide-in) shows a curve cut
            // at its start. The start is fitted too, up to 40% of the duration early, a little
            // penalised so that an uncut fit wins a tie.
            for step in 0...8 {
                let lead = Double(step) * 0.05 * (last.time - first.time)
                let start = first.time - lead
                let squares = inner.reduce(0.0) { sum, point in
                    let miss = function((point.time - start) / (last.time - start)) - point.progress
                    return sum + miss * miss
                }
                let rms = (squares / Double(inner.count)).squareRoot() + Double(step) * 0.002
                if rms < best.1 { best = (curve, rms) }
            }
        }
        return best.1 <= tolerance ? best.0 : .unknown
    }

    /// The curves a transition is tested against.
    static let candidates: [(AnimationCurve, @Sendable (Double) -> Double)] = [
        (.linear, { $0 }),
        (.easeIn, { $0 * $0 }),
        (.easeOut, { 1 - (1 - $0) * (1 - $0) }),
        (.easeInOut, { $0 * $0 * (3 - 2 * $0) }),
    ]

    /// How far apart two frames are: the sum of the changes of the four edges.
    static func distance(_ a: Rect, _ b: Rect) -> Int {
        abs(a.x - b.x) + abs(a.y - b.y) + abs(a.maxX - b.maxX) + abs(a.maxY - b.maxY)
    }
}
