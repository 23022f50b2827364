import Dispatch
import Synchronization

/// What the manager does on its loop's thread: observations into events, events routed to every
/// listener in its delivery.
extension KeyboardManager {

    func ingest(_ observation: KeyboardObservation, run: ManagerRun) {
        configuration.recorder?.record(observation)
        var calls = run.takeSpareCalls()
        state.access { state in
            guard state.run === run else { return }
            var emissions = state.takeEmissions()
            state.tracker.ingest(observation, into: &emissions)
            run.settleDeadline = state.tracker.nextDeadline
            route(&emissions, in: &state, into: &calls)
            state.emissions = emissions
        }
        deliver(calls, run: run)
        run.keepSpare(&calls)
    }

    /// Settles what is due at the tracker's next deadline (exactly then, not at the clock's now:
    /// the events are the same however late the loop woke, and however fast a recording plays).
    func settleAtDeadline(run: ManagerRun) {
        var calls = run.takeSpareCalls()
        state.access { state in
            guard state.run === run, let deadline = state.tracker.nextDeadline else {
                run.settleDeadline = nil
                return
            }
            var emissions = state.takeEmissions()
            state.tracker.advance(to: deadline, into: &emissions)
            run.settleDeadline = state.tracker.nextDeadline
            route(&emissions, in: &state, into: &calls)
            state.emissions = emissions
        }
        deliver(calls, run: run)
        run.keepSpare(&calls)
    }

    func finish(failure: BackendFailure?, run: ManagerRun) {
        // The backend and the loop end before anyone hears of it (a stream's end included), so
        // that a callback or a stream's reader may start the manager again.
        let routed = state.withLock(
            { state, released -> PreparedCalls? in
                guard state.run === run, case .end = state.lifecycle.finished(run) else { return nil }
                var emissions = state.tracker.advance(to: .infinity)
                if let failure, failure.kind != .malformedInput {
                    emissions += state.tracker.hideAll(at: run.loop.clock.now())
                }
                var calls = PreparedCalls()
                route(&emissions, in: &state, into: &calls)
                state.subscribers.routeStop(failure, into: &calls)
                if state.hasDelegate {
                    calls.mainActor.append(
                        .init(subscriber: nil, body: { self.delegate?.keyboardManager(self, didStopWith: failure) }))
                }
                state.reset(into: &released)
                return calls
            },
            beforeLettingGo: { [backend, state] routed in
                if routed != nil { Self.end(run, backend: backend, state: state) }
            })
        guard let calls = routed else { return }
        deliver(calls)
    }

    /// Processes what the backend delivered while it started, now that the start returned.
    func process(_ held: ManagerRun.HeldObservation, run: ManagerRun) {
        switch held {
        case .observation(let observation): ingest(observation, run: run)
        case .finish(let failure): finish(failure: failure, run: run)
        }
    }

    /// Turns emissions into calls for every listener, updating the per-event visible state; the
    /// list is left empty, with its room.
    private func route(
        _ emissions: inout [TrackerEmission], in state: inout ManagerState, into calls: inout PreparedCalls
    ) {
        // Each emission is moved out of the list, in order, rather than copied out of it.
        emissions.reverse()
        while let emission = emissions.popLast() {
            switch emission {
            case .update(let update):
                // A hide's updates are not visible: the keyboard leaves the state at its will.
                if update.isVisible {
                    state.visible.set(update.state)
                } else {
                    state.visible.remove(id: update.keyboard.id)
                }
            case .layoutChanged(let keyboard):
                state.visible.set(keyboard)
            case .progress:
                break
            }
            let visible = state.visible
            state.subscribers.route(
                emission, paused: state.paused,
                keyboards: { visible.ordered }, into: &calls)
            if state.hasDelegate, state.subscribers.delegatePairing.admits(emission, paused: state.paused) {
                calls.mainActor.append(.init(subscriber: nil, body: { self.callDelegate(emission) }))
            }
        }
    }

    /// Makes the calls: immediate ones now, in order, each checked against a cancel made by an
    /// earlier one; the rest handed to their queue, the main queue or the descriptor; the streams'
    /// outboxes drained first. With a run, a stop made by an immediate callback drops the rest of
    /// the batch (a stop forgets keyboards without events).
    private func deliver(_ calls: PreparedCalls, run: ManagerRun? = nil) {
        guard !calls.isEmpty else { return }
        for outbox in calls.drains { outbox.drain() }
        let current = { run.map { run in self.state.access { $0.run === run } } ?? true }
        // Called where they are in the list, not copied out of it.
        for index in calls.immediate.indices {
            // One look under the lock per call: the run is still current, and no earlier call
            // cancelled this subscriber.
            let subscriber = calls.immediate[index].subscriber
            let (running, subscribed) = state.access { state in
                (run.map { state.run === $0 } ?? true, subscriber.map(state.subscribers.contains) ?? true)
            }
            guard running else { return }
            if subscribed { calls.callImmediate(at: index) }
        }
        guard current() else { return }
        for (queue, batch) in calls.queued {
            backlog.queued(.queue, count: batch.count)
            queue.async {
                self.backlog.drained(.queue, count: batch.count)
                for call in batch where self.isSubscribed(call.subscriber) { call.body() }
            }
        }
        if !calls.mainActor.isEmpty {
            let batch = calls.mainActor
            backlog.queued(.mainActor, count: batch.count)
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    self.backlog.drained(.mainActor, count: batch.count)
                    for call in batch where self.isSubscribed(call.subscriber) { call.body() }
                }
            }
        }
        if !calls.descriptor.isEmpty {
            backlog.queued(.descriptor, count: calls.descriptor.count)
            held.append(calls.descriptor)
        }
    }

    @MainActor
    private func callDelegate(_ emission: TrackerEmission) {
        guard let delegate else { return }
        switch emission {
        case .update(let update): delegate.dispatch(update, from: self)
        case .layoutChanged(let keyboard): delegate.keyboardManager(self, didChangeLayout: keyboard)
        case .progress(let progress): delegate.keyboardManager(self, didProgress: progress)
        }
    }
}

extension TrackerEmission {
    /// The event of an update, nil for a layout change or progress.
    var event: KeyboardEvent? {
        if case .update(let update) = self { return update.event }
        return nil
    }

    /// True for an intermediate frame.
    var isProgress: Bool {
        if case .progress = self { return true }
        return false
    }
}
