import KeyboardAdapter

/// Where the input bar is, and where it is going: the bottom inset it keeps free, moving from one
/// value to another over a duration, or jumping at once. Pure, so it is driven by any clock.
struct BarMotion: Equatable {
    /// The inset the bar started the current move from.
    private(set) var from: Double
    /// The inset the bar is moving to (or sits at).
    private(set) var target: Int
    /// When the current move started (seconds, monotonic).
    private(set) var start: Double = 0
    /// How long the current move takes; 0 for a jump.
    private(set) var duration: Double = 0
    /// The shape of the current move.
    private(set) var curve: AnimationCurve = .none

    /// A bar at rest with the given inset.
    init(inset: Int) {
        from = Double(inset)
        target = inset
    }

    /// Moves to `inset` at once.
    mutating func jump(to inset: Int) {
        from = Double(inset)
        target = inset
        duration = 0
        curve = .none
    }

    /// Moves from wherever the bar is at `now` to `inset` over `duration` seconds (at once when
    /// it is not positive), following `curve`.
    mutating func move(to inset: Int, at now: Double, duration: Double, curve: AnimationCurve) {
        guard duration > 0, duration.isFinite else { return jump(to: inset) }
        from = value(at: now)
        target = inset
        start = now
        self.duration = duration
        self.curve = curve
    }

    /// True while a move is under way at `now`.
    func isMoving(at now: Double) -> Bool { duration > 0 && now < start + duration }

    /// The inset at `now`, in fractional pixels.
    func value(at now: Double) -> Double {
        guard isMoving(at: now) else { return Double(target) }
        let progress = max(0, min(1, (now - start) / duration))
        return from + (Double(target) - from) * Self.ease(progress, curve)
    }

    /// The inset at `now`, rounded to a whole pixel.
    func inset(at now: Double) -> Int { Int(value(at: now).rounded()) }

    /// The fraction of the distance covered after the fraction `t` of the time. A measured move
    /// whose shape is not known eases in and out, as most keyboards animate.
    static func ease(_ t: Double, _ curve: AnimationCurve) -> Double {
        switch curve {
        case .linear: t
        case .easeIn: t * t
        case .easeOut: 1 - (1 - t) * (1 - t)
        case .easeInOut, .none, .unknown: t * t * (3 - 2 * t)
        }
    }
}
