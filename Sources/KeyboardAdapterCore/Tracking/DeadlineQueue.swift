/// One pending settle: when, and for which keyboard. Ordered by time, then id, so that ties
/// settle in the same order in every run.
struct DeadlineKey: Sendable, Hashable, Comparable {
    var deadline: Double
    var id: String

    static func < (a: DeadlineKey, b: DeadlineKey) -> Bool {
        a.deadline != b.deadline ? a.deadline < b.deadline : a.id < b.id
    }
}

/// A binary min-heap of settle deadlines, so that finding and taking the earliest costs
/// O(log n) however many keyboards are visible at once (a linear scan made replaying thousands
/// of keyboards quadratic).
struct DeadlineQueue: Sendable {
    private var heap: [DeadlineKey] = []

    /// The earliest key.
    var first: DeadlineKey? { heap.first }

    /// Files a key.
    mutating func insert(_ key: DeadlineKey) {
        heap.append(key)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child] < heap[parent] else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes the earliest key.
    mutating func popFirst() {
        guard !heap.isEmpty else { return }
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left] < heap[smallest] { smallest = left }
            if right < heap.count, heap[right] < heap[smallest] { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
