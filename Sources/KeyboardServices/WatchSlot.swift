import KeyboardAdapterCore
import SystemdBus

/// The connection a D-Bus keyboard service talks through: made, used and closed on its run
/// loop's thread only (``ServiceWatch``, ``GnomeShellWatch``), so it is not `Sendable`: the
/// service holds it loop-bound.
protocol KeyboardServiceWatch: AnyObject, SendableMetatype {
    /// Asks for the keyboard shown or hidden; `completion` runs on the loop's thread.
    func request(visible: Bool, completion: @escaping @Sendable (Result<Void, KeyboardControlError>) -> Void)
    /// Ends the watch; requests still waiting fail. Idempotent.
    func close()
}

/// A service's watch, bound to the loop it runs on, kept under the service's lock: what `stop()`
/// takes out to close and what a show or hide request hops to the loop with.
struct WatchSlot<Watch: KeyboardServiceWatch>: Sendable {
    /// The watch while the service runs.
    private(set) var watch: LoopBound<Watch>?

    /// True while a watch is held.
    var isHolding: Bool { watch != nil }

    /// Keeps `watch`, which runs on the loop of `context` (on that loop's thread).
    mutating func hold(_ watch: Watch, in context: LoopContext) {
        self.watch = LoopBound(watch, context: context)
    }

    /// Empties the slot and returns the watch it held, for the caller to close outside the lock
    /// (on the watch's loop).
    mutating func take() -> LoopBound<Watch>? {
        defer { watch = nil }
        return watch
    }

    /// Sends a show or hide request to the watch on its loop's thread; without a running watch,
    /// `completion` is told why (`service`'s name and its last `state`) at once. Called on a copy
    /// taken out of the lock, since `completion` is the app's.
    func request(
        visible: Bool, service: String, state: KeyboardServiceState,
        completion: @escaping @Sendable (Result<Void, KeyboardControlError>) -> Void
    ) {
        guard let watch else {
            return completion(
                .failure(.unsupported("\(service): \(state.status == .unknown ? "not started" : "\(state)")")))
        }
        watch.loop.perform { watch.value.request(visible: visible, completion: completion) }
    }
}

extension ServiceWatch: KeyboardServiceWatch {}
extension GnomeShellWatch: KeyboardServiceWatch {}
