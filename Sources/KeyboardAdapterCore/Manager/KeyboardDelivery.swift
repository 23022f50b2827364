import Dispatch

/// Where and when a subscription's closures are called. Closures given without a delivery are
/// `@MainActor` and run on the main actor (the main queue); these are the other choices, for
/// closures that are `@Sendable` and not isolated to any actor.
///
/// | delivery | called on | fits |
/// |---|---|---|
/// | main actor (no delivery given) | the main thread, once the main queue runs | apps whose main thread runs `dispatchMain()`, a `RunLoop` or an async `main` |
/// | ``immediate`` | the manager's run-loop thread, as the event is produced | the lowest latency (`kbwatch`); keep the work short, it delays the next event |
/// | ``queue(_:)`` | the given dispatch queue | apps with a queue of their own; give a serial queue to keep the order |
/// | ``descriptor`` | the thread that calls ``KeyboardManager/dispatchPending()`` | apps whose main thread runs its own loop (GTK, SDL, Xlib, `poll()`): watch ``KeyboardManager/pollDescriptor`` |
public enum KeyboardDelivery: Sendable {
    /// On the manager's run-loop thread, as the event is produced.
    case immediate
    /// Asynchronously on `queue`, in order when the queue is serial.
    case queue(DispatchQueue)
    /// Held until the app calls ``KeyboardManager/dispatchPending()``; the manager's
    /// ``KeyboardManager/pollDescriptor`` is readable while anything is held.
    case descriptor
}

/// A closure and how it is to be called. Main-actor closures are only ever called on the main
/// actor; the others on the thread their delivery names.
enum Callback<Value: Sendable>: Sendable {
    case mainActor(@MainActor @Sendable (Value) -> Void)
    case delivered(KeyboardDelivery, @Sendable (Value) -> Void)

    /// Calls the handler of a callback delivered on the loop's thread, with `value`.
    func callImmediately(with value: Value) {
        if case .delivered(_, let handler) = self { handler(value) }
    }
}
