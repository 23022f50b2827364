import KeyboardBackendInterface
import Synchronization
import SystemdBus

/// The connection a D-Bus keyboard service talks through: made, used and closed on its run
/// loop's thread only (``ServiceWatch``, ``GnomeShellWatch``), so it is not `Sendable`: the
/// service holds it loop-bound.
protocol KeyboardServiceWatch: AnyObject, SendableMetatype {
    /// What the peer said last, from the first read on.
    var current: KeyboardServiceState { get }
    /// Asks for the keyboard shown or hidden; `completion` runs on the loop's thread.
    func request(visible: Bool, completion: @escaping @Sendable (Result<Void, KeyboardControlError>) -> Void)
    /// Ends the watch; requests still waiting fail. Idempotent.
    func close()
}

/// What every bus-backed keyboard service does the same way (``DBusKeyboardService``,
/// ``GnomeShellKeyboardService``): its last state and its watch under one lock, the watch made on
/// the loop's thread and held loop-bound, closed outside the lock, and show or hide requests
/// hopped to the watch's loop. The services differ only in the watch they open.
final class WatchedService<Watch: KeyboardServiceWatch>: Sendable {
    private let shared = Mutex(Shared())

    private struct Shared: Sendable {
        var state = KeyboardServiceState(status: .unknown)
        /// The watch while the service runs.
        var watch: LoopBound<Watch>?
    }

    /// What the service said last.
    var state: KeyboardServiceState { shared.withLock { $0.state } }
    /// True between a start that connected and its stop.
    var isWatching: Bool { shared.withLock { $0.watch != nil } }

    /// Opens the watch on the loop of `context` (on its thread) with `open`, which is given what
    /// to call on every change. Each state, the first one too, goes to `note` before it is kept,
    /// then to `onChange`. Without a usable bus the state says why. Does nothing while watching.
    func start(
        in context: LoopContext,
        open: (_ changed: @escaping (KeyboardServiceState) -> Void) throws(BusFailure) -> Watch,
        note: @escaping (KeyboardServiceState) -> Void = { _ in },
        onChange: @escaping (KeyboardServiceState) -> Void
    ) {
        guard !isWatching else { return }
        do {
            let watch = try open { [weak self] state in
                note(state)
                self?.shared.withLock { $0.state = state }
                onChange(state)
            }
            let first = watch.current
            note(first)
            shared.withLock { shared in
                shared.watch = LoopBound(watch, context: context)
                shared.state = first
            }
        } catch {
            let state = KeyboardServiceState(status: .busUnavailable(ServiceProbe.noBusReason(error)))
            note(state)
            shared.withLock { $0.state = state }
        }
    }

    /// Takes the watch out and closes it outside the lock, on its loop. Idempotent.
    func stop() {
        let watch = shared.withLock { shared in
            defer { shared.watch = nil }
            return shared.watch
        }
        watch?.value.close()
    }

    /// Runs `body` with the watch on its loop's thread; false without a running watch.
    @discardableResult
    func withWatch(_ body: @escaping @Sendable (Watch) -> Void) -> Bool {
        guard let watch = shared.withLock({ $0.watch }) else { return false }
        watch.loop.perform { body(watch.value) }
        return true
    }

    /// Sends a show or hide request to the watch on its loop's thread; without a running watch,
    /// `completion` is told why (`service`'s name and its last state) at once. `completion` is the
    /// app's, so it is called with no lock held.
    func requestVisible(
        _ visible: Bool, service: String,
        completion: @escaping @Sendable (Result<Void, KeyboardControlError>) -> Void
    ) {
        let (watch, state) = shared.withLock { ($0.watch, $0.state) }
        guard let watch else {
            return completion(
                .failure(.unsupported("\(service): \(state.status == .unknown ? "not started" : "\(state)")")))
        }
        watch.loop.perform { watch.value.request(visible: visible, completion: completion) }
    }
}

extension ServiceWatch: KeyboardServiceWatch {}
extension GnomeShellWatch: KeyboardServiceWatch {}
