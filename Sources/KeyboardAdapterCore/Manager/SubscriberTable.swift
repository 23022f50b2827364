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

    /// What a subscriber listens to, without its callback.
    enum Kind: Sendable {
        case events(KeyboardEvent?)
        case layout, stop, progress
    }

    /// What it listens to.
    var kind: Kind {
        switch self {
        case .events(let wanted, _): .events(wanted)
        case .layout: .layout
        case .stop: .stop
        case .progress: .progress
        }
    }
}

/// Keeps a listener's will/did pairs whole: a `did` is passed on only when the listener was
/// given its `will`. So a listener added half-way through a transition, or one that was paused
/// when the transition began, never sees a `did` alone, and a `will` delivered before a pause
/// still gets its `did`.
struct PairingFilter: Sendable {
    /// Keyboards whose `will` this listener was given and whose `did` has not come yet: a short
    /// list while few are (a listener is mostly in one transition at a time, and a short list
    /// finds an id without hashing it), a set once more are (a replay shows thousands at once).
    private var few: [String] = []
    private var many: Set<String> = []
    private static let fewest = 8

    mutating func admits(_ emission: TrackerEmission, paused: Bool) -> Bool {
        switch emission {
        case .update(let update):
            let id = update.state.facts.keyboardID
            guard update.event.isWill else { return remove(id) }
            if paused {
                _ = remove(id)
                return false
            }
            insert(id)
            return true
        case .layoutChanged:
            return !paused
        case .progress(let progress):
            // Frames in between belong to a transition whose will this listener was given.
            return few.contains(progress.keyboard.id) || many.contains(progress.keyboard.id)
        }
    }

    private mutating func insert(_ id: String) {
        if many.isEmpty, few.count < Self.fewest {
            if !few.contains(id) { few.append(id) }
        } else {
            if many.isEmpty {
                many = Set(few)
                few.removeAll()
            }
            many.insert(id)
        }
    }

    /// Removes `id`; true when it was there.
    private mutating func remove(_ id: String) -> Bool {
        if let index = few.firstIndex(of: id) {
            few.remove(at: index)
            return true
        }
        return many.remove(id) != nil
    }
}

/// Calls ready to be made, grouped by where they run. Built under the manager's lock, made
/// outside it (a callback may call back into the manager).
struct PreparedCalls: Sendable {
    /// A call and the subscriber it belongs to (checked again right before the call).
    struct Call<Body: Sendable>: Sendable {
        var subscriber: Int?
        var body: Body
    }
    /// What an immediate call does: an event handed to its handler as it is, kept in the list
    /// itself (no closure is made and freed per event for the calls of every move), or any other
    /// call.
    enum ImmediateBody: Sendable {
        /// The event at this index of ``updates``, to the subscriber's callback as it holds it
        /// (its handler taken out of it here would be a closure of another shape, made and freed
        /// per call).
        case update(Callback<KeyboardUpdate>, Int)
        case other(@Sendable () -> Void)
    }
    /// Calls made on the loop's thread, in order, as soon as the lock is released.
    var immediate: [Call<ImmediateBody>] = []
    /// The events the immediate calls hand on, each copied here once, however many subscribers
    /// it goes to.
    var updates: [KeyboardUpdate] = []
    /// Whether the emission being routed already is the last of ``updates``.
    private var routedUpdateIsKept = false
    var mainActor: [Call<@MainActor @Sendable () -> Void>] = []
    var queued: [(queue: DispatchQueue, calls: [Call<@Sendable () -> Void>])] = []
    var descriptor: [Call<@Sendable () -> Void>] = []
    /// The streams' outboxes that were given elements, each once: drained before the calls.
    var drains: [any Draining] = []

    var isEmpty: Bool {
        immediate.isEmpty && mainActor.isEmpty && queued.isEmpty && descriptor.isEmpty && drains.isEmpty
    }

    /// Lets go of every call and keeps the room, for the next event. Called with no lock held:
    /// what it lets go of may be the app's last reference to a callback.
    mutating func removeAll() {
        immediate.removeAll(keepingCapacity: true)
        updates.removeAll(keepingCapacity: true)
        routedUpdateIsKept = false
        mainActor.removeAll()
        queued.removeAll()
        descriptor.removeAll()
        drains.removeAll()
    }

    mutating func drain(_ outbox: any Draining) {
        if !drains.contains(where: { $0 === outbox }) { drains.append(outbox) }
    }

    /// Marks the start of an emission's routing: the first immediate call of its event keeps it.
    mutating func beginEmission() { routedUpdateIsKept = false }

    /// ``add(_:_:subscriber:)`` for the event of `emission`, the emission being routed: an
    /// immediate call refers to the one copy of the event in ``updates``.
    mutating func add(_ callback: Callback<KeyboardUpdate>, eventOf emission: TrackerEmission, subscriber: Int?) {
        guard case .delivered(.immediate, _) = callback else {
            if case .update(let update) = emission { add(callback, update, subscriber: subscriber) }
            return
        }
        if !routedUpdateIsKept {
            guard case .update(let update) = emission else { return }
            updates.append(update)
            routedUpdateIsKept = true
        }
        immediate.append(Call(subscriber: subscriber, body: .update(callback, updates.count - 1)))
    }

    /// Makes the immediate call at `index`, where it is in the list.
    func callImmediate(at index: Int) {
        immediate.withUnsafeBufferPointer { calls in
            switch calls[index].body {
            case .update(let callback, let update):
                updates.withUnsafeBufferPointer { callback.callImmediately(with: $0[update]) }
            case .other(let body): body()
            }
        }
    }

    /// Prepares `callback`'s call with `value`, where its delivery says.
    mutating func add<Value: Sendable>(_ callback: Callback<Value>, _ value: Value, subscriber: Int?) {
        switch callback {
        case .mainActor(let handler):
            mainActor.append(Call(subscriber: subscriber, body: { @MainActor @Sendable in handler(value) }))
        case .delivered(.immediate, let handler):
            immediate.append(Call(subscriber: subscriber, body: .other({ @Sendable in handler(value) })))
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
/// subscribed. Lives inside the manager's lock; what it removes leaves through the bag it is
/// handed (``ReleasedAfterUnlock``), so that nothing of the app's is dropped under the lock.
struct SubscriberTable: Sendable {
    struct Entry: Sendable {
        var id: Int
        let subscriber: Subscriber
        /// What the subscriber listens to: looked at for every emission, without a copy of the
        /// callback (which a look at `subscriber` makes).
        let kind: Subscriber.Kind
        var pairing = PairingFilter()

        init(id: Int, subscriber: Subscriber) {
            self.id = id
            self.subscriber = subscriber
            kind = subscriber.kind
        }
    }
    /// A stream: its outbox, and the pairs it was given.
    struct Stream<Element: Sendable>: Sendable {
        var outbox: StreamOutbox<Element>
        var pairing = PairingFilter()
    }

    private var nextID = 0
    private(set) var entries: [Entry] = []
    private var streams: [Int: Stream<KeyboardSnapshot>] = [:]
    private var progressStreams: [Int: Stream<KeyboardProgress>] = [:]
    /// The delegate's pairing; started afresh whenever a delegate is set.
    var delegatePairing = PairingFilter()

    private mutating func makeID() -> Int {
        nextID += 1
        return nextID
    }

    mutating func add(_ subscriber: Subscriber) -> Int {
        let id = makeID()
        entries.append(Entry(id: id, subscriber: subscriber))
        return id
    }

    mutating func addStream(_ outbox: StreamOutbox<KeyboardSnapshot>) -> Int {
        let id = makeID()
        streams[id] = Stream(outbox: outbox)
        return id
    }

    mutating func addProgressStream(_ outbox: StreamOutbox<KeyboardProgress>) -> Int {
        let id = makeID()
        progressStreams[id] = Stream(outbox: outbox)
        return id
    }

    /// Removes closures; they are released once the lock is.
    mutating func remove(_ ids: some Sequence<Int>, into released: inout ReleasedAfterUnlock) {
        let gone = Set(ids)
        guard entries.contains(where: { gone.contains($0.id) }) else { return }
        released.keep(entries.filter { gone.contains($0.id) })
        entries.removeAll { gone.contains($0.id) }
    }

    /// Removes every closure; they are released once the lock is.
    mutating func removeAll(into released: inout ReleasedAfterUnlock) {
        released.keep(entries)
        entries.removeAll()
    }

    /// Forgets a stream whose reader went away (its continuation is released once the lock is).
    mutating func removeStream(_ id: Int, into released: inout ReleasedAfterUnlock) {
        if let stream = streams.removeValue(forKey: id) { released.keep(stream) }
        if let stream = progressStreams.removeValue(forKey: id) { released.keep(stream) }
    }

    /// Ends every stream: each is finished, and its continuation released, once the lock is
    /// released (the bag's finishing holds it until then).
    mutating func endStreams(into released: inout ReleasedAfterUnlock) {
        for stream in streams.values { released.finish(stream.outbox.finish) }
        for stream in progressStreams.values { released.finish(stream.outbox.finish) }
        streams.removeAll()
        progressStreams.removeAll()
    }

    func contains(_ id: Int) -> Bool { entries.contains { $0.id == id } }

    /// Routes one emission to every closure that wants it and passes the filters, and queues it in
    /// the streams' outboxes, drained with the calls (`keyboards` gives the snapshot's state, read
    /// only when a stream wants it).
    mutating func route(
        _ emission: TrackerEmission, paused: Bool, keyboards: () -> [KeyboardState], into calls: inout PreparedCalls
    ) {
        // Each subscriber is matched against the emission without copying either: a switch over
        // the pair would copy the emission (and its strings) once per subscriber.
        calls.beginEmission()
        let event = emission.event
        for index in entries.indices {
            switch entries[index].kind {
            case .events(let wanted):
                guard let event, entries[index].pairing.admits(emission, paused: paused),
                    wanted == nil || wanted == event, case .events(_, let callback) = entries[index].subscriber
                else { continue }
                calls.add(callback, eventOf: emission, subscriber: entries[index].id)
            case .layout:
                if !paused, case .layoutChanged(let state) = emission,
                    case .layout(let callback) = entries[index].subscriber
                {
                    calls.add(callback, state, subscriber: entries[index].id)
                }
            case .progress:
                switch emission {
                case .progress(let progress):
                    guard entries[index].pairing.admits(emission, paused: paused),
                        case .progress(let callback) = entries[index].subscriber
                    else { continue }
                    calls.add(callback, progress, subscriber: entries[index].id)
                case .update:
                    // A progress listener follows the pairs too, to know which transitions it is in.
                    _ = entries[index].pairing.admits(emission, paused: paused)
                case .layoutChanged:
                    continue
                }
            case .stop:
                continue
            }
        }
        for id in progressStreams.keys {
            guard progressStreams[id]!.pairing.admits(emission, paused: paused) else { continue }
            if case .progress(let progress) = emission {
                progressStreams[id]!.outbox.append(progress)
                calls.drain(progressStreams[id]!.outbox)
            }
        }
        guard !streams.isEmpty, !emission.isProgress else { return }
        let visible = keyboards()
        for id in streams.keys {
            guard streams[id]!.pairing.admits(emission, paused: paused) else { continue }
            switch emission {
            case .update(let update):
                streams[id]!.outbox.append(KeyboardSnapshot(keyboards: visible, update: update))
            case .layoutChanged(let keyboard):
                streams[id]!.outbox.append(KeyboardSnapshot(keyboards: visible, layoutChange: keyboard))
            case .progress: continue
            }
            calls.drain(streams[id]!.outbox)
        }
    }

    /// Routes the end of the backend to every stop closure.
    func routeStop(_ failure: BackendFailure?, into calls: inout PreparedCalls) {
        for entry in entries {
            if case .stop(let callback) = entry.subscriber { calls.add(callback, failure, subscriber: entry.id) }
        }
    }
}
