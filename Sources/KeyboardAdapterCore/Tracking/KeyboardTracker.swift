import Glibc

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What the tracker hands on: a keyboard event, or a layout change of a visible keyboard.
package enum TrackerEmission: Sendable, Hashable {
    /// One of the six keyboard events.
    case update(KeyboardUpdate)
    /// The active input layout of a visible keyboard changed; its frame did not.
    case layoutChanged(KeyboardState)
    /// An intermediate frame of a transition under way.
    case progress(KeyboardProgress)
}

/// The state machine that turns observations into keyboard events. Pure: it never touches a
/// display server, never reads a clock of its own, and is driven by the times the observations
/// carry, so a recording replayed at any speed yields exactly the events of the live run.
///
/// Rules (each shown by a unit test):
/// - Show: `willShow` at the first on-screen observation; `didShow` once the frame has been stable
///   for the settle interval. The begin frame is the last off-screen frame seen just before (a
///   slide-in), else the end frame moved just past the docked edge of its output (bottom when it
///   floats).
/// - Hide: an unmapped, gone or wholly off-screen keyboard gives `willHide` and `didHide` at once;
///   the end frame is the observed off-screen frame, else the last frame moved past the docked edge.
/// - A docked keyboard moving out through its own edge is hiding from its first step: `willHide`
///   then, `didHide` when it has left the screen or is gone, with the measured duration.
/// - A frame change of a visible keyboard gives `willChangeFrame` at once and `didChangeFrame` when
///   settled; a burst inside the settle window is one pair ending at the final frame.
/// - Every `will` gets exactly one `did`; no hide without a show; keyboards are independent.
package struct KeyboardTracker: Sendable {
    /// How long a frame must stay unchanged before a transition counts as settled, in seconds.
    package var settleInterval: Double {
        get { context.settleInterval }
        set { context.settleInterval = max(0, newValue) }
    }
    /// The backend name put on every update.
    package var backendName: String {
        get { context.backendName }
        set { context.backendName = newValue }
    }
    /// Whether this app's own text input is focused and enabled, as the app last said; used for
    /// `isLocal` when the backend cannot tell. Nil when the app said nothing.
    package var appTextInputActive: Bool? {
        get { context.appTextInputActive }
        set { context.appTextInputActive = newValue }
    }
    private var context: TrackerContext
    private var entries = EntryTable()
    /// Pending deadlines, earliest first; keys whose entry has since moved on are skipped.
    private var deadlines = DeadlineQueue()
    /// The last measured show and hide of each keyboard, by name (so that it survives the window
    /// being recreated): what the next `will` event predicts.
    private var timings = TimingMemory()

    /// Creates a tracker.
    /// - Parameters:
    ///   - backendName: the backend name put on updates.
    ///   - settleInterval: seconds a frame must stay put before a `did` event; 0 settles at once.
    ///   - wallClock: the timestamp source for updates (injected for tests).
    package init(
        backendName: String, settleInterval: Double = 0.05, wallClock: @escaping @Sendable () -> Date = { Date() }
    ) {
        context = TrackerContext(settleInterval: max(0, settleInterval), backendName: backendName, wallClock: wallClock)
    }

    /// The earliest time at which `advance(to:)` has something to do, or nil when no transition is
    /// pending (then no timer needs to be armed).
    package var nextDeadline: Double? { deadlines.first?.deadline }

    /// The keyboards that are visible (shown and not hiding), ordered by id.
    package var visibleKeyboards: [KeyboardState] {
        entries.entries.filter(\.isVisible).sorted { $0.identity.id < $1.identity.id }.map(\.state)
    }

    /// Feeds one observation: first settles every transition due by its time, then applies it.
    package mutating func ingest(_ observation: KeyboardObservation) -> [TrackerEmission] {
        var out: [TrackerEmission] = []
        ingest(observation, into: &out)
        return out
    }

    /// Feeds one observation, appending what it emits to `out`: a caller that keeps its list
    /// (emptied, with its room) from one observation to the next allocates nothing per event.
    package mutating func ingest(_ observation: KeyboardObservation, into out: inout [TrackerEmission]) {
        let start = out.count
        advance(to: observation.time, into: &out)
        let id = observation.keyboard.id
        if let place = entries.place(of: id) {
            // Changed in place: the entry (its samples, its strings) is not copied out and back.
            let old = entries[place].deadline
            entries[place].apply(observation, tracker: context, into: &out)
            stored(at: place, id: id, oldDeadline: old)
        } else {
            var entry = Entry(identity: observation.keyboard)
            entry.apply(observation, tracker: context, into: &out)
            store(entry, id: id)
        }
        timings.apply(to: &out, from: start)
        advance(to: observation.time, into: &out)
    }

    /// Settles every transition whose deadline is at or before `time`, in deadline order (ties by id).
    package mutating func advance(to time: Double) -> [TrackerEmission] {
        var out: [TrackerEmission] = []
        advance(to: time, into: &out)
        return out
    }

    /// Settles every transition due by `time`, appending what it emits to `out`.
    package mutating func advance(to time: Double, into out: inout [TrackerEmission]) {
        let start = out.count
        while let next = deadlines.first, next.deadline <= time {
            deadlines.popFirst()
            guard let place = entries.place(of: next.id), entries[place].deadline == next.deadline else {
                continue
            }
            entries[place].settle(at: next.deadline, tracker: context, into: &out)
            stored(at: place, id: next.id, oldDeadline: next.deadline)
        }
        timings.apply(to: &out, from: start)
    }

    /// Puts a new entry in the table, and files its deadline.
    private mutating func store(_ entry: Entry, id: String) {
        // A hidden keyboard with no slide-in under way has nothing to remember: dropping it keeps
        // the table as small as the set of visible keyboards (X11 window ids come and go).
        guard !entry.isForgettable else { return dropStaleDeadlines() }
        entries.insert(entry, id: id)
        if let deadline = entry.deadline { deadlines.insert(DeadlineKey(deadline: deadline, id: id)) }
        dropStaleDeadlines()
    }

    /// After the entry at `index` changed in place: drops it when there is nothing left to
    /// remember, and files its deadline if it has a new one.
    private mutating func stored(at place: Int, id: String, oldDeadline: Double?) {
        let deadline = entries[place].deadline
        if entries[place].isForgettable {
            entries.remove(at: place, id: id)
        } else if let deadline, deadline != oldDeadline {
            deadlines.insert(DeadlineKey(deadline: deadline, id: id))
        }
        dropStaleDeadlines()
    }

    /// A deadline that moved or went leaves a stale key behind; keys at the front are checked
    /// now, so that `nextDeadline` never names a time at which nothing is due.
    private mutating func dropStaleDeadlines() {
        while let first = deadlines.first {
            if let place = entries.place(of: first.id), entries[place].deadline == first.deadline { return }
            deadlines.popFirst()
        }
    }

    /// Hides every keyboard at once (the backend lost its display server): completes what is
    /// pending, then `willHide` and `didHide` for each keyboard still visible.
    package mutating func hideAll(at time: Double) -> [TrackerEmission] {
        var out: [TrackerEmission] = []
        for id in entries.ids.sorted() {
            guard let place = entries.place(of: id) else { continue }
            let old = entries[place].deadline
            entries[place].vanish(at: time, tracker: context, into: &out)
            stored(at: place, id: id, oldDeadline: old)
        }
        timings.apply(to: &out)
        return out
    }

    /// Forgets every keyboard without emitting anything (after a stop).
    package mutating func reset() {
        entries.removeAll()
        deadlines = DeadlineQueue()
        timings = TimingMemory()
    }
}
