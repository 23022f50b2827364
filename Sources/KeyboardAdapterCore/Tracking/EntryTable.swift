/// The tracker's entries, one per keyboard: kept in an array, with each keyboard's place by id.
/// An entry is read and changed where it is (reading one field of a dictionary's value copies the
/// whole value out, with every string it holds), and the keyboard looked up last is found again
/// without hashing its id: an event's observations and deadlines are mostly one keyboard's.
struct EntryTable: Sendable {
    private(set) var entries: [Entry] = []
    private var places: [String: Int] = [:]
    /// The id and place of the last lookup.
    private var last: (id: String, place: Int)?

    var ids: Dictionary<String, Int>.Keys { places.keys }

    /// The place of `id`'s entry.
    mutating func place(of id: String) -> Int? {
        if let last, last.id == id { return last.place }
        guard let place = places[id] else { return nil }
        last = (id, place)
        return place
    }

    subscript(place: Int) -> Entry {
        _read { yield entries[place] }
        _modify { yield &entries[place] }
    }

    /// Adds an entry for `id`, which has none.
    mutating func insert(_ entry: Entry, id: String) {
        places[id] = entries.count
        last = (id, entries.count)
        entries.append(entry)
    }

    /// Removes the entry at `place` (the last entry takes its place).
    mutating func remove(at place: Int, id: String) {
        places.removeValue(forKey: id)
        let moved = entries.count - 1
        if place != moved {
            entries.swapAt(place, moved)
            places[entries[place].identity.id] = place
        }
        entries.removeLast()
        last = nil
    }

    mutating func removeAll() {
        entries.removeAll()
        places.removeAll()
        last = nil
    }
}
