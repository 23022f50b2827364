import KeyboardAdapterCore
@_spi(BackendRun) import KeyboardBackendInterface
import Synchronization
import SystemdBus

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How the session service runs.
package struct SessionServiceConfiguration: Sendable {
    /// Seconds without a subscriber after which the service ends (``KeyboardSessionService``'s
    /// `onIdle`); nil to stay until stopped. Bus listeners that only watch the broadcast signals
    /// cannot be seen, so they do not count.
    package var idleExit: Double?
    /// The most clients subscribed at once, and the most requests waiting for the keyboard and
    /// connections being identified at once: the next is refused with `…Error.LimitsExceeded`.
    package var maximumSubscribers: Int
    /// The most subscriptions (and requests waiting) of one client: one Flatpak app however
    /// many connections it opens, one process outside any sandbox, or all the callers whose
    /// sandbox is not known together. One client that takes its share leaves the rest to the
    /// others.
    package var maximumSubscribersPerClient: Int
    /// Where the service says what it refused to trust (a line without its newline).
    package var log: @Sendable (String) -> Void
    /// The environment the session bus is found in (`DBUS_SESSION_BUS_ADDRESS`).
    package var environment: [String: String]

    /// Creates a configuration: 30 s idle, 256 subscribers, 32 of one client, this process's
    /// environment, the log on standard error.
    package init(
        idleExit: Double? = 30, maximumSubscribers: Int = 256, maximumSubscribersPerClient: Int = 32,
        environment: [String: String] = ProcessEnvironment.current,
        log: @escaping @Sendable (String) -> Void = { KeyboardManager.writeToStandardError($0) }
    ) {
        self.idleExit = idleExit
        self.maximumSubscribers = maximumSubscribers
        self.maximumSubscribersPerClient = maximumSubscribersPerClient
        self.environment = environment
        self.log = log
    }
}

/// Why the session service cannot run.
package enum SessionServiceError: Error, Sendable, CustomStringConvertible {
    /// Another process serves the name already (one service per session).
    case alreadyRunning(owner: String)
    /// No session bus, or it refused the connection.
    case noBus(String)

    /// One line for people.
    package var description: String {
        switch self {
        case .alreadyRunning(let owner):
            "\(SessionServiceNames.busName) is served already (by \(owner)): one service per session"
        case .noBus(let reason): "no session bus: \(reason)"
        }
    }
}

/// One watcher for the whole session: serves a ``KeyboardManager``'s keyboards on the session
/// bus as `org.keyboardadapter.Watcher` (interface `org.keyboardadapter.Watcher2`, XML in
/// Interfaces/). Every event is a signal to every listener (`local` null) and one to each
/// subscriber with `local` judged against that client (its process and user from the bus, its
/// sandbox's app id, and the ids it named that count for it), through the focus the event
/// carries; progress frames go to the subscribers that ask.
///
/// Threading: the bus connection lives on a run loop of its own (one more thread, idle in
/// `poll()`); the manager's events hop there from its loop. `onIdle` is called on that thread.
package final class KeyboardSessionService: Sendable {
    private let manager: KeyboardManager
    private let configuration: SessionServiceConfiguration
    private let phase = Mutex<Phase>(.stopped)

    private struct Running: Sendable {
        /// The service's loop, and its object there.
        let host: LoopHost<SessionServiceObject>
        let subscriptions: [KeyboardSubscription]

        /// Unsubscribes from the manager, leaves the bus and ends the loop. Never under a lock.
        func end() {
            for token in subscriptions { token.cancel() }
            host.stop()
        }
    }

    /// Where the service's life is, changed in one locked step each: a stop during a start is
    /// remembered and done by that start once it has made what it started, after the lock.
    private enum Phase: Sendable {
        case stopped
        /// A start is connecting and taking the name; `stopAsked` when a stop came meanwhile.
        case starting(stopAsked: Bool)
        case running(Running)
    }

    /// A service for `manager`, which should be started (before or after this service).
    package init(manager: KeyboardManager, configuration: SessionServiceConfiguration = .init()) {
        self.manager = manager
        self.configuration = configuration
    }

    /// Connects to the session bus, takes the name and serves; `onIdle` is called once when no
    /// client has subscribed for ``SessionServiceConfiguration/idleExit`` seconds, or when the bus
    /// goes away.
    package func start(onIdle: @escaping @Sendable () -> Void) throws(SessionServiceError) {
        let starts = phase.withLock { phase in
            guard case .stopped = phase else { return false }
            phase = .starting(stopAsked: false)
            return true
        }
        guard starts else { return }
        let manager = manager
        let configuration = configuration
        let host: LoopHost<SessionServiceObject>
        do {
            host = try LoopHost(
                name: "kbd-service",
                make: { context in
                    try Self.serve(on: context, manager: manager, configuration: configuration, onIdle: onIdle)
                }, close: { $0.close() })
        } catch let error as SessionServiceError {
            phase.withLock { $0 = .stopped }
            throw error
        } catch {
            phase.withLock { $0 = .stopped }
            throw .noBus("\(error)")
        }
        // Weakly: the subscriptions must not keep the object once the service stops.
        let carried = try? host.withValue { object in LoopBound(WeakReference(object), loop: host.loop) }
        let loop = host.loop
        let subscriptions = [
            manager.onEvent(delivery: .immediate) { update in loop.perform { carried?.value.value?.publish(update) } },
            manager.onProgress(delivery: .immediate) { progress in
                loop.perform { carried?.value.value?.publish(progress) }
            },
        ]
        let running = Running(host: host, subscriptions: subscriptions)
        let stopAsked = phase.withLock { phase in
            if case .starting(stopAsked: true) = phase {
                phase = .stopped
                return true
            }
            phase = .running(running)
            return false
        }
        if stopAsked { running.end() }
    }

    /// A connection that asks the bus who callers are, taking the descriptors of the bus's
    /// `ProcessFD` (dbus-daemon 1.15.x and later): it makes no object and owns no name, so
    /// nothing but the bus driver's replies is meant for it, and whatever else carries
    /// descriptors is dropped as it is processed. Nil when the bus hands out no `ProcessFD` (asked
    /// of the connection itself), or it cannot connect: the service's own connection asks then.
    private static func identityConnection(_ environment: [String: String]) -> BusConnection? {
        guard let identity = try? BusConnection(environment: environment, takesDescriptors: true),
            let name = identity.uniqueName,
            let reply = try? identity.call(.busDriver("GetConnectionCredentials", [.string(name)]), timeout: 1),
            reply.credentials()?.process != nil
        else { return nil }
        return identity
    }

    private static func serve(
        on context: LoopContext, manager: KeyboardManager, configuration: SessionServiceConfiguration,
        onIdle: @escaping @Sendable () -> Void
    ) throws(SessionServiceError) -> SessionServiceObject {
        let connection: BusConnection
        let owned: Bool
        do throws(BusFailure) {
            connection = try BusConnection(environment: configuration.environment)
            owned = try connection.requestName(SessionServiceNames.busName) == .owned
        } catch {
            throw .noBus(error.description)
        }
        guard owned else {
            let owner = try? connection.call(
                .busDriver("GetConnectionUnixProcessID", [.string(SessionServiceNames.busName)]), timeout: 1)
            let pid = owner.flatMap { try? $0.readUInt32() }
            throw .alreadyRunning(owner: pid.map { "pid \($0)" } ?? "another process")
        }
        do throws(BusFailure) {
            let object = try SessionServiceObject(
                connection: connection, identity: Self.identityConnection(configuration.environment), context: context,
                manager: manager, configuration: configuration)
            object.onIdle = onIdle
            return object
        } catch {
            throw .noBus(error.description)
        }
    }

    /// Leaves the bus (the name is free again) and ends the service's thread. Idempotent. During
    /// a start on another thread it returns at once, and that start ends the service once it has
    /// made it (the name is free when the start returns).
    package func stop() {
        let running = phase.withLock { phase -> Running? in
            switch phase {
            case .stopped:
                return nil
            case .starting:
                phase = .starting(stopAsked: true)
                return nil
            case .running(let running):
                phase = .stopped
                return running
            }
        }
        running?.end()
    }

    deinit { stop() }
}
