/// The keyboards visible as of the last emission routed, kept ordered by id. There are one or
/// two of them, so a list searched in order beats a dictionary: a move replaces one element after
/// finding it by the facts it shares with the new state, where a dictionary hashes the id on
/// every event.
struct VisibleKeyboards: Sendable {
    /// The keyboards, ordered by id.
    private(set) var ordered: [KeyboardState] = []

    /// True when no keyboard is visible.
    var isEmpty: Bool { ordered.isEmpty }

    /// Puts `state` in place of the one with its id, or adds it in order.
    mutating func set(_ state: KeyboardState) {
        // A move's state shares its facts with the one it replaces: found without reading an id.
        for index in ordered.indices where ordered[index].facts.isShared(with: state.facts) {
            ordered[index] = state
            return
        }
        let id = state.keyboard.id
        for index in ordered.indices where ordered[index].keyboard.id == id {
            ordered[index] = state
            return
        }
        let place = ordered.firstIndex { $0.keyboard.id > id } ?? ordered.endIndex
        ordered.insert(state, at: place)
    }

    /// Removes the keyboard with `id`, when it is there.
    mutating func remove(id: String) {
        ordered.removeAll { $0.keyboard.id == id }
    }

    /// Removes every keyboard.
    mutating func removeAll() { ordered.removeAll() }
}
