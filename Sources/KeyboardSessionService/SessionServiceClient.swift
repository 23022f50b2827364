import KeyboardAdapterCore
@_spi(BackendRun) import KeyboardBackendInterface
import Synchronization
import SystemdBus

/// A client of the session service (`kbwatch --from-service`): subscribes with an app identity
/// and receives the service's lines, asks its state, shows and hides. The bus starts the service
/// when it is installed and not running (D-Bus activation).
///
/// Threading: ``watch(options:onReceive:onEnd:)`` runs the connection on a run loop of its own,
/// which the returned ``SessionServiceWatch`` owns; `onReceive` and `onEnd` are called on that
/// loop's thread. The other calls block the caller. The client keeps no watch of its own.
package final class SessionServiceClient: Sendable {
    /// What the client subscribes with.
    package struct Options: Sendable, Hashable {
        /// Also receive progress frames.
        package var progress: Bool
        /// Whether this process counts as the app's (true for an app; kbwatch, which has no
        /// windows, says false).
        package var caller: Bool
        /// Processes besides this one whose focus makes a keyboard local.
        package var processIDs: [Int32]
        /// X11 windows that count as the app's.
        package var windowIDs: [UInt64]
        /// App ids that count as the app's.
        package var appIDs: [String]

        /// Creates options.
        package init(
            progress: Bool = false, caller: Bool = true, processIDs: [Int32] = [], windowIDs: [UInt64] = [],
            appIDs: [String] = []
        ) {
            self.progress = progress
            self.caller = caller
            self.processIDs = processIDs
            self.windowIDs = windowIDs
            self.appIDs = appIDs
        }
    }

    /// Why a call to the service failed.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// The D-Bus error's name when the service (or the bus) answered with one.
        package var name: String?
        /// One line for people.
        package var description: String
    }

    /// The service's present, as `GetState` answers it.
    package struct State: Sendable, Hashable {
        /// The visible keyboards, `local` judged for the options subscribed with.
        package var keyboards: [KeyboardState]
        /// What the keyboards' own services say.
        package var services: [KeyboardServiceReport]
        /// Space reserved at output edges that no keyboard is known to fill.
        package var reserved: [ReservedStrip]

        /// A state of these parts.
        package init(keyboards: [KeyboardState], services: [KeyboardServiceReport], reserved: [ReservedStrip]) {
            self.keyboards = keyboards
            self.services = services
            self.reserved = reserved
        }
    }

    /// What the service sent a subscriber.
    package enum Received: Sendable {
        /// One of the six events.
        case update(KeyboardUpdate)
        /// A frame of a transition (subscribed with ``Options/progress``).
        case progress(KeyboardProgress)
        /// A signal of the service that did not read as its interface says, with the reason: it
        /// is not passed on (a service of another version, or a bug).
        case refused(String)
    }

    /// How long a call may take, bus activation of the service included.
    package static let callTimeout = 25.0

    private let environment: [String: String]

    /// A client of the service on the session bus of `environment`.
    package init(environment: [String: String]) { self.environment = environment }

    /// The service's present, `local` judged for `options`.
    package func state(options: Options) throws(Failure) -> State {
        let connection = try connect()
        _ = try subscribe(connection, options)
        let reply = try call(connection, "GetState")
        do {
            guard reply.hasSignature("a{sv}") else { throw WatcherValueReader.Refusal(description: "not a{sv}") }
            return try WatcherValueReader.state(reply.readValue())
        } catch {
            throw Failure(name: nil, description: "the service's state does not read: \(error)")
        }
    }

    /// Asks the service to show (`true`) or hide the keyboard; returns once it accepted.
    package func request(show: Bool) throws(Failure) {
        let connection = try connect()
        _ = try call(connection, show ? "Show" : "Hide")
    }

    /// Subscribes and passes what the service sends to `onReceive` (each event, and with
    /// `options.progress` each progress frame), until the returned watch is stopped; `onEnd` is
    /// called once if the service or the bus goes away first. Each call is a watch of its own.
    package func watch(
        options: Options, onReceive: @escaping @Sendable (Received) -> Void,
        onEnd: @escaping @Sendable (String) -> Void
    ) throws(Failure) -> SessionServiceWatch {
        let host: LoopHost<ClientState>
        do {
            host = try LoopHost(
                name: "kbd-client",
                make: { context in try self.start(on: context, options: options, onReceive: onReceive, onEnd: onEnd) },
                close: { $0.close() })
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(name: nil, description: "\(error)")
        }
        return SessionServiceWatch(host: host)
    }

    private func start(
        on context: LoopContext, options: Options, onReceive: @escaping @Sendable (Received) -> Void,
        onEnd: @escaping @Sendable (String) -> Void
    ) throws(Failure) -> ClientState {
        let connection = try connect()
        let state = ClientState(connection: connection, context: context)
        let ended = Mutex(false)
        let end: @Sendable (String) -> Void = { reason in
            guard
                !ended.withLock({
                    let was = $0
                    $0 = true
                    return was
                })
            else { return }
            onEnd(reason)
        }
        let base =
            "type='signal',sender='\(SessionServiceNames.busName)',path='\(SessionServiceNames.objectPath)',"
            + "interface='\(SessionServiceNames.interfaceName)'"
        do throws(BusFailure) {
            // Only the service's own connection speaks for it (anyone can address a signal to this
            // one): its owner comes from the Subscribe reply, then from the bus. The broadcast
            // events and progress frames take `local` from the verdicts sent to this subscriber.
            let verdicts = state.verdicts
            let handlers: [(String, (BusMessage) -> Received?)] =
                [
                    ("Verdict", { message in Self.recordVerdict(message, in: verdicts) }),
                    ("Event", { message in Self.received(message, progress: false, verdicts: verdicts) }),
                    ("SubscriberEvent", { message in Self.received(message, progress: false, verdicts: nil) }),
                ]
                + (options.progress
                    ? [("Progress", { message in Self.received(message, progress: true, verdicts: verdicts) })] : [])
            for (member, handle) in handlers {
                state.slots.append(
                    try connection.addMatch(base + ",member='\(member)'", from: state.service.origin) { message in
                        if let received = handle(message) { onReceive(received) }
                    })
            }
            state.slots.append(
                try connection.addMatch(
                    "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',"
                        + "arg0='\(SessionServiceNames.busName)'", from: .bus
                ) { [service = state.service] message in
                    guard message.hasSignature("sss"), (try? message.readString()) != nil,
                        (try? message.readString()) != nil, let owner = try? message.readString()
                    else { return }
                    service.owner = owner.isEmpty ? nil : owner
                    if owner.isEmpty { end("the session service went away") }
                })
        } catch {
            throw Failure(name: nil, description: error.description)
        }
        state.service.owner = try subscribe(connection, options)
        state.pump.onBroken = { reason in end(reason) }
        return state
    }

    /// An event or progress frame, read as the interface says. With `verdicts` it is a broadcast
    /// one, which takes `local` from them: nil when it was published before the subscription.
    /// Without, it is a `SubscriberEvent`, `local` judged in it.
    private static func received(_ message: BusMessage, progress: Bool, verdicts: ClientVerdicts?) -> Received? {
        do {
            guard message.hasSignature("a{sv}") else {
                throw WatcherValueReader.Refusal(description: "its signature is not a{sv}")
            }
            let value = try message.readValue()
            // nil: the value's own `local` stands (a SubscriberEvent's).
            var verdict: Bool??
            if let verdicts {
                guard let holding = verdicts.verdicts.local(for: try WatcherValueReader.show(value)) else { return nil }
                verdict = holding
            }
            if progress {
                var frame = try WatcherValueReader.progress(value)
                if let verdict { frame.state.isLocal = verdict }
                return .progress(frame)
            }
            var update = try WatcherValueReader.update(value)
            if let verdict { update.isLocal = verdict }
            return .update(update)
        } catch {
            return .refused("the service's \(progress ? "progress frame" : "event") does not read: \(error)")
        }
    }

    /// Records a `Verdict`; nothing is passed on but a refusal.
    private static func recordVerdict(_ message: BusMessage, in verdicts: ClientVerdicts) -> Received? {
        do {
            guard message.hasSignature("ua{sv}") else {
                throw WatcherValueReader.Refusal(description: "its signature is not ua{sv}")
            }
            guard case .integer(let number) = try message.readValue(), let show = UInt32(exactly: number) else {
                throw WatcherValueReader.Refusal(description: "its show is not a show's number")
            }
            verdicts.verdicts.record(try WatcherValueReader.verdict(message.readValue()), from: show)
            return nil
        } catch {
            return .refused("the service's verdict does not read: \(error)")
        }
    }

    // MARK: - Calls

    private func connect() throws(Failure) -> BusConnection {
        do throws(BusFailure) {
            return try BusConnection(environment: environment)
        } catch {
            throw Failure(name: nil, description: "no session bus: \(error)")
        }
    }

    /// Subscribes; returns the unique name of the service's connection, which answered.
    private func subscribe(_ connection: BusConnection, _ options: Options) throws(Failure) -> String? {
        var entries: [(String, BusValue)] = [("progress", .bool(options.progress)), ("caller", .bool(options.caller))]
        if !options.appIDs.isEmpty { entries.append(("app_ids", .strings(options.appIDs))) }
        if !options.processIDs.isEmpty { entries.append(("pids", .uint32s(options.processIDs.map { UInt32($0) }))) }
        if !options.windowIDs.isEmpty { entries.append(("window_ids", .uint64s(options.windowIDs))) }
        return try call(connection, "Subscribe", [.dictionary(entries)]).sender
    }

    private func call(_ connection: BusConnection, _ member: String, _ values: [BusValue] = []) throws(Failure)
        -> BusMessage
    {
        let call = BusCall(
            destination: SessionServiceNames.busName, path: SessionServiceNames.objectPath,
            interface: SessionServiceNames.interfaceName, member: member, startsDestination: true)
        do throws(BusFailure) {
            let reply = try connection.call(call, values: values, timeout: Self.callTimeout)
            if let error = reply.error { throw error }
            return reply
        } catch {
            throw Failure(name: error.name, description: error.description)
        }
    }
}

/// One watch of the service, owned by whoever watches: its loop, and its connection and slots
/// there. The caller stops it; the client keeps none.
package final class SessionServiceWatch: Sendable {
    private let host: LoopHost<ClientState>

    init(host: LoopHost<ClientState>) { self.host = host }

    /// Unsubscribes (the connection closes) and ends the watch's thread. Idempotent; also when
    /// the watch is let go of.
    package func stop() { host.stop() }
}

/// A watch's connection on its loop: the pump and the signal matches. Used on that loop only.
final class ClientState {
    // Not Sendable: made on the watch's loop and used there only; the watch keeps it loop-bound
    // (``SessionServiceWatch/stop()`` closes it there).
    let pump: BusPump
    var slots: [BusSlot] = []
    /// The service's connection: its signals alone are heard.
    let service = NameOwnership()
    /// This subscriber's verdicts, for the broadcast events.
    let verdicts = ClientVerdicts()

    init(connection: BusConnection, context: LoopContext) {
        pump = BusPump(connection, context: context)
    }

    func close() {
        slots.removeAll()
        pump.close()
    }
}

/// A subscriber's verdicts, shared by the client's signal handlers on its loop.
final class ClientVerdicts {
    // Not Sendable: reached only by the client's signal handlers, which run on its loop.
    var verdicts = SubscriberVerdicts()
}
