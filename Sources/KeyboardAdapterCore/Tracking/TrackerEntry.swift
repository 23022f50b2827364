#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The settings an entry needs while it changes state.
struct TrackerContext: Sendable {
    var settleInterval: Double
    var backendName: String
    var appTextInputActive: Bool?
    let wallClock: @Sendable () -> Date

    func makeUpdate(
        _ event: KeyboardEvent, _ entry: Entry, begin: Rect, end: Rect, predicted: Bool = false,
        duration: Double, curve: AnimationCurve, visible: Bool
    ) -> TrackerEmission {
        .update(
            KeyboardUpdate(
                event: event,
                state: KeyboardState(
                    facts: entry.facts, frame: end, isDocked: entry.isDocked,
                    dockedEdge: entry.isDocked ? entry.edge : nil, isLocal: entry.isLocal, geometry: entry.geometry,
                    windowFrame: entry.windowFrame(in: end)),
                backend: backendName, beginFrame: begin, endFrame: end,
                isEndFramePredicted: predicted, animationDuration: duration, animationCurve: curve,
                isVisible: visible, timestamp: wallClock()))
    }

    /// An intermediate frame of `entry`'s transition, with how far it has come.
    func makeProgress(_ transition: KeyboardEvent, _ entry: Entry, at time: Double) -> TrackerEmission {
        let end = entry.destination ?? entry.begin
        let total = CurveFit.distance(entry.begin, end)
        let travelled = CurveFit.distance(entry.begin, entry.current ?? entry.begin)
        let known = entry.isEndPredicted || entry.isEndNamed
        let fraction = known && total > 0 ? min(1, Double(travelled) / Double(total)) : nil
        return .progress(
            KeyboardProgress(
                transition: transition, state: entry.state, beginFrame: entry.begin, endFrame: end,
                isEndFramePredicted: entry.isEndPredicted, fraction: fraction, elapsed: time - entry.transitionStart,
                backend: backendName, timestamp: wallClock()))
    }
}

/// One keyboard's place in the state machine.
struct Entry: Sendable {
    enum Phase: Sendable { case hidden, showing, visible, changing, hiding }

    /// The keyboard, its output, layout and focus, in storage shared with the observations they
    /// came from and the events made of them.
    var facts: KeyboardFacts
    var identity: KeyboardIdentity {
        get { facts.keyboard }
        set { facts.keyboard = newValue }
    }
    var phase: Phase = .hidden
    /// The latest on-screen frame.
    var current: Rect?
    /// The begin frame of the transition under way.
    var begin: Rect = .zero
    /// Where the transition under way is going, as its `will` event said.
    var destination: Rect?
    /// Whether `destination` was computed ahead (a docked slide-in, a hide) rather than seen.
    var isEndPredicted = false
    /// Whether `destination` was named ahead by the display server (an observation's own).
    var isEndNamed = false
    /// When the transition under way began (its first frame, or the off-screen frame before it).
    var transitionStart = 0.0
    var samples: [CurveFit.Sample] = []
    /// The output as of the last event, to tell a move to another output from a frame change.
    var outputAtLastEvent: Output?
    var deadline: Double?
    /// The last off-screen frame seen while hidden: the start of a slide-in.
    var offScreen: CurveFit.Sample?
    var isDocked = false
    var edge: Edge?
    var output: Output? {
        get { facts.output }
        set { facts.output = newValue }
    }
    /// The output's frame, read without a copy of the output.
    var outputFrame: Rect? { facts.storage.output?.frame }
    var geometry: GeometrySource = .unknown
    /// Where the keyboard's own window sat inside the last frame observed, as its distances from
    /// the frame's left, top, right and bottom edges; nil when the window was the whole frame.
    var windowInsets: (left: Int, top: Int, right: Int, bottom: Int)?
    var isLocal: Bool?
    var focus: FocusedTopLevel? {
        get { facts.focus }
        set { facts.focus = newValue }
    }
    var layout: InputLayout? {
        get { facts.layout }
        set { facts.layout = newValue }
    }

    init(identity: KeyboardIdentity) { facts = KeyboardFacts(keyboard: identity, output: nil, layout: nil, focus: nil) }

    var isVisible: Bool { phase == .showing || phase == .visible || phase == .changing }

    /// Hidden, with no off-screen frame kept as the start of a slide-in, and nothing pending.
    var isForgettable: Bool { phase == .hidden && offScreen == nil && deadline == nil }

    var state: KeyboardState {
        KeyboardState(
            facts: facts, frame: current ?? .zero, isDocked: isDocked, dockedEdge: isDocked ? edge : nil,
            isLocal: isLocal, geometry: geometry, windowFrame: current.flatMap(windowFrame(in:)))
    }

    /// The keyboard's own window inside `frame`, placed as it was inside the last frame observed;
    /// nil when the window was the whole frame or the geometry is unknown.
    func windowFrame(in frame: Rect) -> Rect? {
        guard let windowInsets, geometry != .unknown else { return nil }
        return Rect(
            x: frame.x + windowInsets.left, y: frame.y + windowInsets.top,
            width: max(0, frame.width - windowInsets.left - windowInsets.right),
            height: max(0, frame.height - windowInsets.top - windowInsets.bottom))
    }

    /// The most samples a transition keeps: a storm of frame changes inside one transition then
    /// costs bounded memory; thinning keeps the first and the last (the duration) and an even
    /// spread between (the curve).
    static let maximumSamples = 256

    /// Adds a sample, halving the kept ones when there are too many.
    mutating func record(_ sample: CurveFit.Sample) {
        samples.append(sample)
        guard samples.count > Self.maximumSamples else { return }
        let last = samples.count - 1
        samples = samples.indices.filter { $0 % 2 == 0 || $0 == last }.map { samples[$0] }
    }

    /// The curve of the transition under way.
    var curve: AnimationCurve { CurveFit.classify(samples) }

    /// Time from the first to the last frame change of the transition under way.
    var duration: Double {
        guard let first = samples.first, let last = samples.last else { return 0 }
        return last.time - first.time
    }

    /// Where the keyboard is when off screen through its docked edge (bottom when floating).
    func offScreenFrame(for frame: Rect) -> Rect {
        guard geometry != .unknown else { return .zero }
        guard let outputFrame else { return frame.offsetBy(dx: 0, dy: frame.height) }
        return frame.movedOffScreen(through: isDocked ? (edge ?? .bottom) : .bottom, of: outputFrame)
    }

    func isOnScreen(_ frame: Rect) -> Bool {
        guard !frame.isEmpty else { return false }
        guard let outputFrame else { return true }
        return frame.intersects(outputFrame)
    }

    mutating func apply(_ o: KeyboardObservation, tracker: TrackerContext, into out: inout [TrackerEmission]) {
        let before = facts
        // Facts in the observation's own storage hold its values already: a move, whose facts
        // are those of the move before, takes nothing from them.
        let sameFacts = o.facts.isShared(with: facts)
        if !sameFacts { identity = o.keyboard }
        let wasVisible = isVisible
        // Up, but nothing tells where: the frames are zero and marked unknown, never guessed.
        let placeUnknown = o.frame == nil && o.isShown
        if let frame = o.frame {
            if !sameFacts { output = o.output ?? output }
            geometry = o.geometry
            windowInsets = o.windowFrame.map {
                ($0.x - frame.x, $0.y - frame.y, frame.maxX - $0.maxX, frame.maxY - $0.maxY)
            }
            let judged = outputFrame.flatMap { frame.dockedEdge(in: $0) }
            isDocked = o.isDocked ?? (judged != nil)
            edge = o.dockedEdge ?? judged ?? (isDocked ? outputFrame.flatMap { frame.touchedEdge(of: $0) } : nil)
        } else if placeUnknown {
            if !sameFacts { output = o.output ?? output }
            geometry = .unknown
            windowInsets = nil
            isDocked = o.isDocked ?? false
            edge = o.dockedEdge
        }
        if let local = o.isLocal { isLocal = local }
        if !sameFacts {
            if o.layout != nil { layout = o.layout }
            if let seen = o.focus { focus = seen }
            // The same values as the observation's: its storage, so that the next one is known
            // the same at a glance.
            facts.share(o.facts)
        }

        if let frame = o.frame, let target = o.destination, frame != target,
            startsNamedSlide(o, from: frame, to: target, tracker: tracker, into: &out)
        {
            return
        }
        // A show towards a named place may still be off screen in its first steps.
        let inboundNamed = phase == .showing && isEndNamed && o.destination.map(isOnScreen) == true
        guard placeUnknown || inboundNamed || o.frame.map(isOnScreen) == true else {
            disappear(offScreen: o.frame, at: o.time, tracker: tracker, into: &out)
            return
        }
        let frame = o.frame ?? .zero
        let outputChanged = o.output != nil && o.output != outputAtLastEvent
        switch phase {
        case .hidden:
            isLocal = o.isLocal ?? tracker.appTextInputActive
            focus = o.focus
            let start = offScreen
            offScreen = nil
            begin = placeUnknown ? .zero : start?.frame ?? offScreenFrame(for: frame)
            samples = (start.map { [$0] } ?? []) + [CurveFit.Sample(time: o.time, frame: frame)]
            current = frame
            outputAtLastEvent = output
            phase = .showing
            deadline = settleDeadline(o, tracker)
            // A docked keyboard coming in through its edge ends flush with that edge: known now;
            // the display server may name the end itself.
            let landing = placeUnknown ? nil : slideInDestination(for: frame)
            let named = o.destination.flatMap { isOnScreen($0) ? $0 : nil }
            destination = named ?? landing ?? frame
            isEndPredicted = named == nil && landing != nil
            isEndNamed = named != nil
            transitionStart = start?.time ?? o.time
            out.append(
                tracker.makeUpdate(
                    .willShow, self, begin: begin, end: destination ?? frame, predicted: isEndPredicted, duration: 0,
                    curve: .unknown, visible: true))
        case .showing, .changing:
            if isSlidingOut(to: frame) || isTurningBack(to: frame) {
                complete(at: o.time, tracker: tracker, into: &out)
                startHide(to: frame, at: o.time, tracker: tracker, into: &out)
            } else if frame != current || outputChanged {
                let moved = frame != current
                current = frame
                outputAtLastEvent = output
                record(CurveFit.Sample(time: o.time, frame: frame))
                deadline = settleDeadline(o, tracker)
                if moved {
                    out.append(tracker.makeProgress(phase == .showing ? .willShow : .willChangeFrame, self, at: o.time))
                }
            }
        case .visible:
            if isSlidingOut(to: frame) {
                startHide(to: frame, at: o.time, tracker: tracker, into: &out)
            } else if frame != current || outputChanged {
                begin = current ?? frame
                current = frame
                outputAtLastEvent = output
                samples = [CurveFit.Sample(time: o.time, frame: frame)]
                // Where a move ends cannot be known before it does.
                destination = frame
                isEndPredicted = false
                isEndNamed = false
                transitionStart = o.time
                phase = .changing
                deadline = o.time + tracker.settleInterval
                out.append(
                    tracker.makeUpdate(
                        .willChangeFrame, self, begin: begin, end: frame, duration: 0,
                        curve: .unknown, visible: true))
            }
        case .hiding:
            if let edge, let outputFrame, frame.extendsPast(edge, of: outputFrame) {
                let moved = frame != current
                current = frame
                record(CurveFit.Sample(time: o.time, frame: frame))
                deadline = settleDeadline(o, tracker)
                if moved { out.append(tracker.makeProgress(.willHide, self, at: o.time)) }
            } else {
                // It came back in: the hide ends where it turned, and a new show starts.
                finishHide(end: current ?? frame, at: o.time, tracker: tracker, into: &out)
                apply(o, tracker: tracker, into: &out)
                return
            }
        }
        if wasVisible, isVisible, !facts.isShared(with: before), before.layout != layout {
            out.append(.layoutChanged(state))
        }
    }

    /// Where a docked keyboard first seen reaching past its own edge will come to rest: flush with
    /// that edge. Nil for a keyboard that floats or is already wholly on screen (its first frame
    /// is then its place).
    func slideInDestination(for frame: Rect) -> Rect? {
        guard isDocked, let edge, let outputFrame, frame.extendsPast(edge, of: outputFrame) else { return nil }
        return frame.movedFlush(against: edge, of: outputFrame)
    }

    /// A docked keyboard sliding in that moves back towards its edge before it got where it was
    /// going: the show ends where it turned, and a hide begins.
    func isTurningBack(to frame: Rect) -> Bool {
        guard phase == .showing, isEndPredicted, let destination, let edge, let outputFrame, let current,
            frame.width == current.width, frame.height == current.height,
            frame.extendsPast(edge, of: outputFrame)
        else { return false }
        return CurveFit.distance(frame, destination) > CurveFit.distance(current, destination)
    }

    /// A docked keyboard reaching past its own edge while keeping its size is sliding out.
    func isSlidingOut(to frame: Rect) -> Bool {
        guard isDocked, let edge, let outputFrame, let current, frame.width == current.width,
            frame.height == current.height
        else { return false }
        return frame.extendsPast(edge, of: outputFrame) && !current.extendsPast(edge, of: outputFrame)
    }

    /// Starts a hide at `frame`: towards `named` when the display server named where it goes
    /// (then nothing settles before it gets there), else just past the docked edge.
    mutating func startHide(
        to frame: Rect, named: Rect? = nil, at time: Double, tracker: TrackerContext,
        into out: inout [TrackerEmission]
    ) {
        begin = current ?? frame
        current = frame
        // A named slide is timed from its first step: the display server may take a while to
        // draw its first frame, which is not part of the slide.
        samples = named == nil ? [CurveFit.Sample(time: time, frame: frame)] : []
        phase = .hiding
        deadline = time + (named == nil ? tracker.settleInterval : KeyboardObservation.longestNamedStep)
        // It leaves through its edge: both ends of the hide name the frame just past that edge.
        destination = named ?? offScreenFrame(for: begin)
        isEndPredicted = named == nil
        isEndNamed = named != nil
        transitionStart = time
        out.append(
            tracker.makeUpdate(
                .willHide, self, begin: begin, end: destination ?? frame, predicted: isEndPredicted, duration: 0,
                curve: .unknown, visible: false))
    }

    /// When a transition that just took observation `o` settles: after the settle interval, or,
    /// while the keyboard is still on its way to a place the display server named, only once it
    /// has gone that long without a step.
    func settleDeadline(_ o: KeyboardObservation, _ tracker: TrackerContext) -> Double {
        let inMotion = o.destination != nil && o.frame != o.destination
        return o.time
            + (inMotion ? max(tracker.settleInterval, KeyboardObservation.longestNamedStep) : tracker.settleInterval)
    }

    /// A slide whose end the display server names (`o.destination`), seen at its start: a show
    /// begun off screen, a hide begun in place, or one turned into the other. True when `o` was
    /// taken here.
    mutating func startsNamedSlide(
        _ o: KeyboardObservation, from frame: Rect, to target: Rect, tracker: TrackerContext,
        into out: inout [TrackerEmission]
    ) -> Bool {
        let inbound = isOnScreen(target)
        switch phase {
        case .hidden where inbound && !isOnScreen(frame):
            isLocal = o.isLocal ?? tracker.appTextInputActive
            focus = o.focus
            offScreen = nil
            begin = frame
            // Timed from its first step, as a named hide is.
            samples = []
            current = frame
            outputAtLastEvent = output
            phase = .showing
            deadline = o.time + max(tracker.settleInterval, KeyboardObservation.longestNamedStep)
            destination = target
            isEndPredicted = false
            isEndNamed = true
            transitionStart = o.time
            out.append(
                tracker.makeUpdate(
                    .willShow, self, begin: frame, end: target, duration: 0, curve: .unknown, visible: true))
            return true
        case .visible where !inbound:
            startHide(to: frame, named: target, at: o.time, tracker: tracker, into: &out)
            return true
        case .showing where !inbound, .changing where !inbound:
            complete(at: o.time, tracker: tracker, into: &out)
            startHide(to: frame, named: target, at: o.time, tracker: tracker, into: &out)
            return true
        case .hiding where inbound:
            // It turned back: the hide ends where it turned, and the show starts from there.
            finishHide(end: current ?? frame, at: o.time, tracker: tracker, into: &out)
            if !isOnScreen(frame) { return startsNamedSlide(o, from: frame, to: target, tracker: tracker, into: &out) }
            return false
        default:
            return false
        }
    }

    /// Ends a hide at `end`; `seen` is the last frame observed (when it differs from `end`, which
    /// is then the computed frame past the edge), kept for the measured duration.
    mutating func finishHide(
        end: Rect, seen: Rect? = nil, predicted: Bool = false, at time: Double, tracker: TrackerContext,
        into out: inout [TrackerEmission]
    ) {
        // Gone without a last frame (unmapped): the time counts, the frame stays where it was seen.
        let last = seen ?? samples.last?.frame ?? end
        if let previous = samples.last, previous.time < time || previous.frame != last {
            record(CurveFit.Sample(time: time, frame: last))
        }
        out.append(
            tracker.makeUpdate(
                .didHide, self, begin: begin, end: end, predicted: predicted, duration: duration,
                curve: curve, visible: false))
        reset()
    }

    /// The keyboard left the screen (off-screen frame) or is gone (nil frame).
    mutating func disappear(
        offScreen frame: Rect?, at time: Double, tracker: TrackerContext,
        into out: inout [TrackerEmission]
    ) {
        switch phase {
        case .hidden:
            offScreen = frame.map { CurveFit.Sample(time: time, frame: $0) }
        case .hiding:
            // Whatever offset its last step stopped at, the hide ends where its will said.
            finishHide(
                end: destination ?? offScreenFrame(for: begin), seen: frame, predicted: !isEndNamed, at: time,
                tracker: tracker, into: &out)
        case .showing, .changing, .visible:
            complete(at: time, tracker: tracker, into: &out)
            let from = current ?? .zero
            begin = from
            samples = []
            out.append(
                tracker.makeUpdate(
                    .willHide, self, begin: from, end: frame ?? offScreenFrame(for: from), predicted: frame == nil,
                    duration: 0, curve: .unknown, visible: false))
            out.append(
                tracker.makeUpdate(
                    .didHide, self, begin: from, end: frame ?? offScreenFrame(for: from), predicted: frame == nil,
                    duration: 0, curve: .none, visible: false))
            reset()
        }
    }

    /// Gone without a trace (lost display server).
    mutating func vanish(at time: Double, tracker: TrackerContext, into out: inout [TrackerEmission]) {
        disappear(offScreen: nil, at: time, tracker: tracker, into: &out)
        offScreen = nil
    }

    /// Emits the `did` event of a show or frame change under way, ahead of its settle time.
    mutating func complete(at time: Double, tracker: TrackerContext, into out: inout [TrackerEmission]) {
        guard phase == .showing || phase == .changing else { return }
        settle(at: time, tracker: tracker, into: &out)
    }

    /// The settle deadline passed with no further change.
    mutating func settle(at time: Double, tracker: TrackerContext, into out: inout [TrackerEmission]) {
        deadline = nil
        let end = current ?? begin
        switch phase {
        case .showing, .changing:
            let event: KeyboardEvent = phase == .showing ? .didShow : .didChangeFrame
            out.append(
                tracker.makeUpdate(
                    event, self, begin: begin, end: end, duration: duration,
                    curve: curve, visible: true))
            phase = .visible
            samples = []
        case .hiding:
            // It stopped part-way out: the hide is over, and what is left on screen is a new show.
            finishHide(end: end, at: time, tracker: tracker, into: &out)
            phase = .showing
            current = end
            begin = end
            samples = [CurveFit.Sample(time: time, frame: end)]
            deadline = time + tracker.settleInterval
            destination = end
            isEndPredicted = false
            isEndNamed = false
            transitionStart = time
            out.append(
                tracker.makeUpdate(
                    .willShow, self, begin: end, end: end, duration: 0, curve: .unknown,
                    visible: true))
        case .visible, .hidden:
            break
        }
    }

    mutating func reset() {
        phase = .hidden
        current = nil
        samples = []
        deadline = nil
        offScreen = nil
        outputAtLastEvent = nil
        destination = nil
        isEndPredicted = false
        isEndNamed = false
    }
}
