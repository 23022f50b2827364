import Synchronization

/// Joins the outcomes of several show or hide requests into one completion (a backend that asks
/// two keyboards to hide answers once): it completes after `count` outcomes with the first
/// failure, else success. Any thread; the completion runs on the thread of the last outcome.
package final class KeyboardRequestGroup: Sendable {
    private let remaining: Mutex<(count: Int, failure: KeyboardControlError?)>
    private let completion: @Sendable (Result<Void, KeyboardControlError>) -> Void

    /// Creates a group that waits for `count` outcomes (at least one).
    package init(count: Int, completion: @escaping @Sendable (Result<Void, KeyboardControlError>) -> Void) {
        remaining = Mutex((max(1, count), nil))
        self.completion = completion
    }

    /// Records one outcome; the last one completes the group.
    package func finish(_ result: Result<Void, KeyboardControlError>) {
        let outcome = remaining.withLock { state -> Result<Void, KeyboardControlError>? in
            guard state.count > 0 else { return nil }
            if case .failure(let error) = result, state.failure == nil { state.failure = error }
            state.count -= 1
            guard state.count == 0 else { return nil }
            return state.failure.map { .failure($0) } ?? .success(())
        }
        if let outcome { completion(outcome) }
    }
}
