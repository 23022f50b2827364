import KeyboardAdapterCore
@_spi(BackendRun) import KeyboardBackendInterface
import SystemdBus

/// The session service when it cannot watch: it owns the name for a moment and answers every call
/// with `org.keyboardadapter.Watcher2.Error.NoDisplay` and `reason`, then ends.
///
/// Why: the bus starts the service with the bus's own activation environment, which a session
/// started by hand (`dbus-run-session`, `dbus-daemon --fork`) never told its `DISPLAY` or
/// `WAYLAND_DISPLAY`. A service that just exited would leave the caller with
/// `org.freedesktop.DBus.Error.Spawn.ChildExited` and its own message in a log nobody reads; this
/// one tells the caller why, and how to fix it. It leaves a second after the last call, so that a
/// call made after the fix starts a service anew.
///
/// Threading: the bus connection lives on a run loop of its own; `onEnd` is called on that thread.
package final class UnavailableSessionService: Sendable {
    /// How long the name is kept after the last call (or after the start, when no call comes).
    package static let linger = 1.0

    private let host: LoopHost<Responder>

    /// Connects to the session bus (from `environment`), takes the name and answers each call with
    /// `reason`; calls `onEnd` once a second has passed without a call, or when the bus goes away.
    package init(
        reason: String, environment: [String: String] = ProcessEnvironment.current,
        onEnd: @escaping @Sendable () -> Void
    ) throws(SessionServiceError) {
        do {
            host = try LoopHost(
                name: "kbd-service",
                make: { context in
                    try Responder(context: context, reason: reason, environment: environment, onEnd: onEnd)
                },
                close: { $0.close() })
        } catch let error as SessionServiceError {
            throw error
        } catch {
            throw .noBus("\(error)")
        }
    }

    /// Leaves the bus and ends the thread. Idempotent.
    package func stop() { host.stop() }

    deinit { stop() }

    /// The object that answers, on the loop's thread.
    private final class Responder {
        private let pump: BusPump
        private var slot: BusSlot?
        private let reason: String

        init(
            context: LoopContext, reason: String, environment: [String: String],
            onEnd: @escaping @Sendable () -> Void
        ) throws(SessionServiceError) {
            let connection: BusConnection
            let owned: Bool
            do throws(BusFailure) {
                connection = try BusConnection(environment: environment)
                owned = try connection.requestName(SessionServiceNames.busName) == .owned
            } catch {
                throw .noBus(error.description)
            }
            guard owned else { throw .alreadyRunning(owner: "another process") }
            pump = BusPump(connection, context: context)
            self.reason = reason
            pump.onTimer = onEnd
            pump.onBroken = { _ in onEnd() }
            // Every call on the service's object, whatever its interface: this service does nothing.
            do throws(BusFailure) {
                slot = try connection.addObject(SessionServiceNames.objectPath) { [unowned self] call in
                    self.answer(call)
                }
            } catch {
                throw .noBus(error.description)
            }
            pump.timer = MonotonicClock.now() + UnavailableSessionService.linger
            pump.needsProcessing()
        }

        private func answer(_ call: BusMessage) -> Bool {
            pump.connection.replyError(to: call, name: SessionServiceNames.errorPrefix + "NoDisplay", message: reason)
            pump.timer = MonotonicClock.now() + UnavailableSessionService.linger
            pump.needsProcessing()
            return true
        }

        func close() {
            slot = nil
            pump.close()
        }
    }
}
