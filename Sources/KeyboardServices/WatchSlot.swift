import KeyboardAdapterCore

/// The connection a D-Bus keyboard service talks through: made, used and closed on its run
/// loop's thread only (``ServiceWatch``, ``GnomeShellWatch``).
protocol KeyboardServiceWatch: AnyObject, Sendable {
    /// Asks for the keyboard shown or hidden; `completion` runs on the loop's thread.
    func request(visible: Bool, completion: @escaping @Sendable (Result<Void, KeyboardControlError>) -> Void)
    /// Ends the watch; requests still waiting fail. Idempotent.
    func close()
}

/// A service's watch and the loop it runs on, kept under the service's lock: what `stop()` takes
/// out to close and what a show or hide request hops to the loop with.
struct WatchSlot<Watch: KeyboardServiceWatch> {
    /// The watch while the service runs.
    private(set) var watch: Watch?
    private weak var loop: KeyboardRunLoop?

    /// Keeps `watch`, which runs on `loop`.
    mutating func hold(_ watch: Watch, on loop: KeyboardRunLoop?) {
        self.watch = watch
        self.loop = loop
    }

    /// Empties the slot and returns the watch it held, for the caller to close outside the lock.
    mutating func take() -> Watch? {
        defer {
            watch = nil
            loop = nil
        }
        return watch
    }

    /// Sends a show or hide request to the watch on its loop's thread; without a running watch,
    /// `completion` is told why (`service`'s name and its last `state`) at once. Called on a copy
    /// taken out of the lock, since `completion` is the app's.
    func request(
        visible: Bool, service: String, state: KeyboardServiceState,
        completion: @escaping @Sendable (Result<Void, KeyboardControlError>) -> Void
    ) {
        guard let watch, let loop else {
            return completion(
                .failure(.unsupported("\(service): \(state.status == .unknown ? "not started" : "\(state)")")))
        }
        loop.perform { watch.request(visible: visible, completion: completion) }
    }
}

extension ServiceWatch: KeyboardServiceWatch {}
extension GnomeShellWatch: KeyboardServiceWatch {}
