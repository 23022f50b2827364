/// The keyboards visible as of the last emission routed, kept ordered by id, and found by a
/// binary search of their ids: a move of the one keyboard visible compares one id (ids made by
/// the same backend compare by their bits), where a dictionary hashes the id on every event, and
/// a replay with thousands visible at once still finds each in a dozen comparisons.
struct VisibleKeyboards: Sendable {
    /// The keyboards, ordered by id.
    private(set) var ordered: [KeyboardState] = []

    /// True when no keyboard is visible.
    var isEmpty: Bool { ordered.isEmpty }

    /// Puts `state` in place of the one with its id, or adds it in order.
    mutating func set(_ state: KeyboardState) {
        let (place, found) = search(state.facts.keyboardID)
        if found { ordered[place] = state } else { ordered.insert(state, at: place) }
    }

    /// Removes the keyboard with `id`, when it is there.
    mutating func remove(id: String) {
        let (place, found) = search(id)
        if found { ordered.remove(at: place) }
    }

    /// Removes every keyboard.
    mutating func removeAll() { ordered.removeAll() }

    /// Where the keyboard with `id` is, or where it would go, and whether it is there.
    private func search(_ id: String) -> (place: Int, found: Bool) {
        var low = ordered.startIndex
        var high = ordered.endIndex
        while low < high {
            let middle = low + (high - low) / 2
            let other = ordered[middle].facts.keyboardID
            if other == id { return (middle, true) }
            if other < id { low = middle + 1 } else { high = middle }
        }
        return (low, false)
    }
}
