import Dispatch

/// What a subscriber wants, and how it is called.
enum Subscriber: Sendable {
    /// One kind of keyboard event, or every kind (nil).
    case events(KeyboardEvent?, Callback<KeyboardUpdate>)
    /// Layout changes of visible keyboards.
    case layout(Callback<KeyboardState>)
    /// The backend stopping by itself.
    case stop(Callback<BackendFailure?>)
    /// Intermediate frames of transitions.
    case progress(Callback<KeyboardProgress>)
}

/// Keeps a listener's will/did pairs whole: a `did` is passed on only when the listener was
/// given its `will`. So a listener added half-way through a transition, or one that was paused
/// when the transition began, never sees a `did` alone, and a `will` delivered before a pause
/// still gets its `did`.
struct PairingFilter: Sendable {
    /// Keyboards whose `will` this listener was given and whose `did` has not come yet.
    private var open: Set<String> = []

    mutating func admits(_ emission: TrackerEmission, paused: Bool) -> Bool {
        switch emission {
        case .update(let update):
            let id = update.keyboard.id
            guard update.event.isWill else { return open.remove(id) != nil }
            if paused {
                open.remove(id)
                return false
            }
            open.insert(id)
            return true
        case .layoutChanged:
            return !paused
        case .progress(let progress):
            // Frames in between belong to a transition whose will this listener was given.
            return open.contains(progress.keyboard.id)
        }
    }
}

/// Closures ready to be called, grouped by where they run. Built under the manager's lock,
/// called outside it (a callback may call back into the manager).
struct PreparedCalls: Sendable {
    /// A call and the subscriber it belongs to (checked again right before the call).
    struct Call<Body: Sendable>: Sendable {
        var subscriber: Int?
        var body: Body
    }
    var immediate: [Call<@Sendable () -> Void>] = []
    var mainActor: [Call<@MainActor @Sendable () -> Void>] = []
    var queued: [(queue: DispatchQueue, calls: [Call<@Sendable () -> Void>])] = []
    var descriptor: [Call<@Sendable () -> Void>] = []

    var isEmpty: Bool { immediate.isEmpty && mainActor.isEmpty && queued.isEmpty && descriptor.isEmpty }

    mutating func add<Value: Sendable>(_ callback: Callback<Value>, _ value: Value, subscriber: Int?) {
        switch callback {
        case .mainActor(let handler):
            mainActor.append(Call(subscriber: subscriber, body: { @MainActor @Sendable in handler(value) }))
        case .delivered(.immediate, let handler):
            immediate.append(Call(subscriber: subscriber, body: { @Sendable in handler(value) }))
        case .delivered(.descriptor, let handler):
            descriptor.append(Call(subscriber: subscriber, body: { @Sendable in handler(value) }))
        case .delivered(.queue(let queue), let handler):
            let call = Call<@Sendable () -> Void>(subscriber: subscriber, body: { @Sendable in handler(value) })
            if let index = queued.firstIndex(where: { $0.queue === queue }) {
                queued[index].calls.append(call)
            } else {
                queued.append((queue, [call]))
            }
        }
    }
}

/// Every listener of a manager: closures, streams and the delegate's pairing, in the order they
/// subscribed. Lives inside the manager's lock.
struct SubscriberTable: Sendable {
    struct Entry: Sendable {
        var id: Int
        var subscriber: Subscriber
        var pairing = PairingFilter()
    }
    struct Stream: Sendable {
        var continuation: AsyncStream<KeyboardSnapshot>.Continuation
        var pairing = PairingFilter()
    }
    struct ProgressStream: Sendable {
        var continuation: AsyncStream<KeyboardProgress>.Continuation
        var pairing = PairingFilter()
    }

    private var nextID = 0
    private(set) var entries: [Entry] = []
    var streams: [Int: Stream] = [:]
    var progressStreams: [Int: ProgressStream] = [:]
    /// The delegate's pairing; started afresh whenever a delegate is set.
    var delegatePairing = PairingFilter()

    mutating func makeID() -> Int {
        nextID += 1
        return nextID
    }

    mutating func add(_ subscriber: Subscriber) -> Int {
        let id = makeID()
        entries.append(Entry(id: id, subscriber: subscriber))
        return id
    }

    mutating func remove(_ ids: some Sequence<Int>) {
        let gone = Set(ids)
        entries.removeAll { gone.contains($0.id) }
    }

    mutating func removeAll() { entries.removeAll() }

    func contains(_ id: Int) -> Bool { entries.contains { $0.id == id } }

    /// Routes one emission to every closure that wants it and passes the filters.
    mutating func route(_ emission: TrackerEmission, paused: Bool, into calls: inout PreparedCalls) {
        for index in entries.indices {
            switch (emission, entries[index].subscriber) {
            case (.update(let update), .events(let wanted, let callback)):
                guard entries[index].pairing.admits(emission, paused: paused) else { continue }
                if wanted == nil || wanted == update.event {
                    calls.add(callback, update, subscriber: entries[index].id)
                }
            case (.layoutChanged(let state), .layout(let callback)):
                if !paused { calls.add(callback, state, subscriber: entries[index].id) }
            case (.progress(let progress), .progress(let callback)):
                guard entries[index].pairing.admits(emission, paused: paused) else { continue }
                calls.add(callback, progress, subscriber: entries[index].id)
            case (.update, .progress):
                // A progress listener follows the pairs too, to know which transitions it is in.
                _ = entries[index].pairing.admits(emission, paused: paused)
            default:
                continue
            }
        }
    }

    /// Routes the end of the backend to every stop closure.
    func routeStop(_ failure: BackendFailure?, into calls: inout PreparedCalls) {
        for entry in entries {
            if case .stop(let callback) = entry.subscriber { calls.add(callback, failure, subscriber: entry.id) }
        }
    }
}
