import KeyboardBackendInterface

/// What the model has delivered per keyboard window, and what changed since: the windows to
/// observe again once the queued events are drained, so that a burst of events costs one
/// observation per window, and the hides of keyboards destroyed meanwhile.
struct ObservationBatch {
    /// What was last delivered per keyboard window, to drop repeats: ConfigureNotify arrives once
    /// through the root and once through the window itself.
    private(set) var delivered: [WindowID: KeyboardObservation] = [:]
    /// Windows to observe again, in the order they changed.
    private var dirty: [WindowID] = []
    /// The same windows, to add each once.
    private var dirtySet: Set<WindowID> = []
    /// Hides of keyboard windows destroyed since the last flush.
    private var gone: [KeyboardObservation] = []

    /// Whether a window was marked or a keyboard destroyed since the last flush.
    var isEmpty: Bool { dirty.isEmpty && gone.isEmpty }

    /// Notes that `window`'s observation may have changed.
    mutating func markDirty(_ window: WindowID) {
        if dirtySet.insert(window).inserted { dirty.append(window) }
    }

    /// Marks every keyboard window delivered so far, in id order: what they all carry changed.
    mutating func markAllDelivered() {
        for window in delivered.keys.sorted() { markDirty(window) }
    }

    /// Puts the windows marked since the last call into `list` (empty, and kept by the caller
    /// with its room), in the order they were marked; the batch keeps `list`'s old room.
    mutating func takeDirty(into list: inout [WindowID]) {
        swap(&dirty, &list)
        if !dirtySet.isEmpty { dirtySet.removeAll(keepingCapacity: true) }
    }

    /// The hides of keyboards destroyed since the last call.
    mutating func takeGone() -> [KeyboardObservation] {
        let taken = gone
        gone = []
        return taken
    }

    /// `window` was destroyed: a keyboard shown there is hidden at the next flush.
    mutating func windowDestroyed(_ window: WindowID) {
        if let hidden = forget(window) { gone.append(hidden) }
    }

    /// Forgets what was delivered for `window`; returns its hide when it was shown.
    mutating func forget(_ window: WindowID) -> KeyboardObservation? {
        guard let last = delivered.removeValue(forKey: window), last.frame != nil else { return nil }
        var hidden = last
        hidden.frame = nil
        hidden.windowFrame = nil
        return hidden
    }

    /// Keeps `observation` as `window`'s last and returns true when it says something new: not a
    /// repeat of the last one delivered, and not the hide of a keyboard never shown.
    mutating func record(_ observation: KeyboardObservation, for window: WindowID) -> Bool {
        guard let index = delivered.index(forKey: window) else {
            guard observation.frame != nil else { return false }
            delivered[window] = observation
            return true
        }
        // Compared and replaced in place: the last observation is not copied out.
        return delivered.values[index].replace(with: observation)
    }

    /// Hides every keyboard shown, at `time`, in id order, and returns the hides.
    mutating func hideAll(at time: Double) -> [KeyboardObservation] {
        var hides: [KeyboardObservation] = []
        for (window, last) in delivered.sorted(by: { $0.key < $1.key }) where last.frame != nil {
            var hidden = last
            hidden.frame = nil
            hidden.windowFrame = nil
            hidden.time = time
            hides.append(hidden)
            delivered[window] = hidden
        }
        return hides
    }
}

extension KeyboardObservation {
    /// Becomes `other` unless the two differ only in their time; true when it did.
    fileprivate mutating func replace(with other: KeyboardObservation) -> Bool {
        let time = self.time
        self.time = other.time
        if self == other {
            self.time = time
            return false
        }
        self = other
        return true
    }
}
