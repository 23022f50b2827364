/// What each keyboard's slides in and out took, as last measured, keyed by the keyboard's name:
/// onboard recreates its window when docking is toggled, and its slides stay the same. The `will`
/// event of the next show or hide carries these values, marked predicted; the first one of a
/// keyboard carries none, marked unknown, rather than an invented value.
struct TimingMemory: Sendable {
    struct Timing: Sendable, Hashable {
        var duration: Double
        var curve: AnimationCurve
    }

    private var shows: [String: Timing] = [:]
    private var hides: [String: Timing] = [:]

    /// Fills the `will` events of `emissions` with predictions and learns from their `did`
    /// events, in order, so that a hide followed by a show in one batch predicts from the hide.
    /// Only the emissions from `start` on are looked at.
    mutating func apply(to emissions: inout [TrackerEmission], from start: Int = 0) {
        for index in start..<emissions.count {
            // Frame changes teach and predict nothing: they are passed over without a copy.
            guard let kind = emissions[index].timingKind, kind.known,
                case .update(var update) = emissions[index]
            else { continue }
            let event = kind.event
            let name = update.keyboard.name
            switch event {
            case .willShow, .willHide:
                let known = update.event == .willShow ? shows[name] : hides[name]
                update.animationDuration = known?.duration ?? 0
                update.animationCurve = known?.curve ?? .unknown
                update.timing = known == nil ? .unknown : .predicted
                emissions[index] = .update(update)
            // Slides are remembered; a keyboard that once jumped into place (onboard at start-up:
            // mapped below the screen, then moved in one step) still slides the next time, so a
            // transition with no frame in between teaches nothing.
            case .didShow where update.animationCurve != .none:
                shows[name] = Timing(duration: update.animationDuration, curve: update.animationCurve)
            case .didHide where update.animationCurve != .none:
                hides[name] = Timing(duration: update.animationDuration, curve: update.animationCurve)
            case .didShow, .didHide:
                continue
            case .willChangeFrame, .didChangeFrame:
                continue
            }
        }
    }
}

extension TrackerEmission {
    /// What ``TimingMemory`` looks at first: an update's event and whether its frame is known,
    /// nil for a frame change, a layout change or progress.
    fileprivate var timingKind: (event: KeyboardEvent, known: Bool)? {
        guard case .update(let update) = self else { return nil }
        switch update.event {
        case .willChangeFrame, .didChangeFrame: return nil
        default: return (update.event, update.hasKnownFrame)
        }
    }
}
