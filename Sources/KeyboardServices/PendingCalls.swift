import SystemdBus

/// The calls a watch has sent and waits on, each with what to do with its reply: a reply, an
/// error reply or a timeout reaches the handler from `process()`; closing the watch hands nil to
/// every one still waiting, in the order they were sent. Used on the loop's thread only.
final class PendingCalls {
    private var waiting: [Int: (slot: BusSlot?, handler: (BusMessage?) -> Void)] = [:]
    private var next = 0

    /// Sends `call` on `connection`; `handler` gets the reply, or nil when it cannot be sent or
    /// the watch closed first. `pump` flushes the call on its next turn.
    func send(
        _ call: BusCall, on connection: BusConnection, timeout: Double, pump: BusPump?,
        handler: @escaping (BusMessage?) -> Void
    ) {
        let id = next
        next += 1
        do {
            let slot = try connection.callAsync(call, timeout: timeout) { [unowned self] reply in
                self.waiting.removeValue(forKey: id)?.handler(reply)
            }
            waiting[id] = (slot, handler)
            // The call may be queued behind others: the next turn flushes it.
            pump?.needsProcessing()
        } catch {
            handler(nil)
        }
    }

    /// Every call still waiting gets nil, oldest first; their slots go with them.
    func failAll() {
        let calls = waiting
        waiting.removeAll()
        for (_, call) in calls.sorted(by: { $0.key < $1.key }) { call.handler(nil) }
    }
}
