import Glibc
import KbwatchOutput
import KeyboardAdapterCore
import KeyboardServices

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The service's object on the bus (`/org/keyboardadapter/Watcher`), on the service's loop: it
/// answers the interface's methods and properties, and publishes each event of the manager as
/// signals. Used on the loop's thread only.
final class SessionServiceObject {
    private let pump: BusPump
    private var connection: BusConnection { pump.connection }
    private let manager: KeyboardManager
    private let configuration: SessionServiceConfiguration
    private let loop: KeyboardRunLoop
    private var slot: BusSlot?
    private var subscribers = SessionSubscribers()
    /// Subscribe calls waiting for the bus to tell the caller's pid, and show or hide requests
    /// waiting for the keyboard: bounded together.
    private var waiting: [Int: BusMessage] = [:]
    private var nextWaiting = 0
    private let writer = JSONWriter()
    /// What the properties say now.
    private var visible = false
    private var keyboardsJSON = "[]"
    /// Called once when no client has subscribed for the idle time.
    var onIdle: (() -> Void)?

    init(
        connection: BusConnection, context: LoopContext, manager: KeyboardManager,
        configuration: SessionServiceConfiguration
    ) throws(BusFailure) {
        pump = BusPump(connection, context: context)
        self.manager = manager
        self.configuration = configuration
        loop = context.runLoop!
        refreshPresent()
        slot = try connection.addObject(SessionServiceNames.objectPath) { [unowned self] call in self.received(call) }
        pump.onTimer = { [unowned self] in self.idleCheck() }
        pump.onBroken = { [unowned self] _ in self.onIdle?() }
        armIdle()
    }

    // MARK: - Publishing

    /// Publishes an event: to each subscriber with its own `local`, then to everyone with `local`
    /// null. The subscribers' signals go first: each is one message to one client, where the
    /// broadcast is matched by the bus against every connection's rules.
    func publish(_ update: KeyboardUpdate) {
        var anonymous = update
        anonymous.isLocal = nil
        let everyone = writer.line(for: anonymous)
        // One text per verdict (true, false, unknown), however many subscribers share it.
        var judgedTrue: String?
        var judgedFalse: String?
        for name in subscribers.names {
            guard let local = subscribers.byName[name]?.identity.isLocal(given: update.focus) else {
                emit("SubscriberEvent", everyone, to: name)
                continue
            }
            let text = local ? judgedTrue : judgedFalse
            if let text {
                emit("SubscriberEvent", text, to: name)
                continue
            }
            var judged = update
            judged.isLocal = local
            let made = writer.line(for: judged)
            if local { judgedTrue = made } else { judgedFalse = made }
            emit("SubscriberEvent", made, to: name)
        }
        emit("Event", everyone)
        let before = (visible, keyboardsJSON)
        refreshPresent()
        if before != (visible, keyboardsJSON) {
            let changed: [BusValue] = [
                .string(SessionServiceNames.interfaceName),
                .dictionary([("Visible", .bool(visible)), ("Keyboards", .string(keyboardsJSON))]), .strings([]),
            ]
            try? connection.emit(
                path: SessionServiceNames.objectPath, interface: "org.freedesktop.DBus.Properties",
                member: "PropertiesChanged", changed)
        }
        pump.needsProcessing()
    }

    /// Publishes a progress frame to the subscribers that asked for them.
    func publish(_ progress: KeyboardProgress) {
        var line: String?
        for name in subscribers.names where subscribers.byName[name]?.options.progress == true {
            line = line ?? writer.line(forProgress: progress)
            emit("SubscriberProgress", line!, to: name)
        }
        if line != nil { pump.needsProcessing() }
    }

    private func emit(_ member: String, _ json: String, to destination: String? = nil) {
        // When the bus takes no more for one client (one that never reads), that one misses it
        // and the others go on.
        try? connection.emit(
            path: SessionServiceNames.objectPath, interface: SessionServiceNames.interfaceName, member: member,
            text: json, destination: destination)
    }

    private func refreshPresent() {
        let keyboards = manager.visibleKeyboards.map { state -> KeyboardState in
            var anonymous = state
            anonymous.isLocal = nil
            return anonymous
        }
        visible = !keyboards.isEmpty
        keyboardsJSON = writer.keyboardsJSON(keyboards)
    }

    // MARK: - Calls

    private func received(_ call: BusMessage) -> Bool {
        let (interface, member) = call.member
        switch (interface ?? "", member ?? "") {
        case ("org.freedesktop.DBus.Introspectable", "Introspect"):
            try? connection.reply(to: call, [.string(SessionServiceNames.introspection)])
        case ("org.freedesktop.DBus.Properties", "Get"): property(call)
        case ("org.freedesktop.DBus.Properties", "GetAll"): allProperties(call)
        case ("org.freedesktop.DBus.Properties", "Set"):
            refuse(call, "org.freedesktop.DBus.Error.PropertyReadOnly", "every property is read-only")
        case (SessionServiceNames.interfaceName, "Subscribe"): subscribe(call)
        case (SessionServiceNames.interfaceName, "Unsubscribe"): unsubscribe(call)
        case (SessionServiceNames.interfaceName, "GetState"): state(call)
        case (SessionServiceNames.interfaceName, "Show"): request(call, show: true)
        case (SessionServiceNames.interfaceName, "Hide"): request(call, show: false)
        default: return false
        }
        pump.needsProcessing()
        return true
    }

    private func refuse(_ call: BusMessage, _ name: String, _ message: String) {
        connection.replyError(to: call, name: name, message: message)
    }

    private func invalid(_ call: BusMessage, _ message: String) {
        refuse(call, "org.freedesktop.DBus.Error.InvalidArgs", message)
    }

    private var properties: [(String, BusValue)] {
        [
            ("Version", .uint32(SessionServiceNames.version)), ("Backend", .string(manager.backendName)),
            ("Visible", .bool(visible)), ("Keyboards", .string(keyboardsJSON)),
        ]
    }

    private func property(_ call: BusMessage) {
        guard call.hasSignature("ss"), let interface = try? call.readString(), let name = try? call.readString()
        else { return invalid(call, "Get takes an interface and a property name (ss)") }
        guard interface == SessionServiceNames.interfaceName, let value = properties.first(where: { $0.0 == name })
        else { return invalid(call, "no property \(name) on \(interface)") }
        try? connection.reply(to: call, [.variant(value.1)])
    }

    private func allProperties(_ call: BusMessage) {
        guard call.hasSignature("s"), let interface = try? call.readString() else {
            return invalid(call, "GetAll takes an interface name (s)")
        }
        try? connection.reply(to: call, [.dictionary(interface == SessionServiceNames.interfaceName ? properties : [])])
    }

    private func subscribe(_ call: BusMessage) {
        guard let sender = call.sender else { return invalid(call, "a call without a sender") }
        guard call.hasSignature("a{sv}") else { return invalid(call, "Subscribe takes options (a{sv})") }
        let options: SubscribeOptions
        do throws(SubscribeOptions.Refusal) {
            options = try SubscribeOptions.read(call)
        } catch {
            return invalid(call, error.reason)
        }
        if subscribers[sender] != nil {
            // Subscribing again replaces the options.
            subscribers[sender]?.options = options
            try? connection.reply(to: call, [])
            return
        }
        guard subscribers.count < configuration.maximumSubscribers, waiting.count < configuration.maximumSubscribers
        else {
            return refuse(
                call, SessionServiceNames.errorPrefix + "LimitsExceeded",
                "\(configuration.maximumSubscribers) clients are subscribed already")
        }
        let rule =
            "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
            + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(sender)'"
        let watch = try? connection.addMatch(rule, from: .bus) { [unowned self] message in self.ownerChanged(message) }
        subscribers[sender] = SessionSubscribers.Subscriber(options: options, ownerWatch: watch)
        disarmIdle()
        // The caller's process, from the bus: Subscribe returns once it is known.
        let id = hold(call)
        let asked = try? connection.callAsync(
            .busDriver("GetConnectionUnixProcessID", [.string(sender)]), timeout: 5
        ) { [unowned self] reply in
            if reply.error == nil, reply.hasSignature("u"), let pid = try? reply.readUInt32(), pid > 0,
                pid <= UInt32(Int32.max)
            {
                subscribers[sender]?.pid = Int32(pid)
            }
            if let held = release(id) { try? connection.reply(to: held, []) }
            replayPresent(to: sender)
            pump.needsProcessing()
        }
        if let asked {
            pidQueries[id] = asked
        } else if let held = release(id) {
            try? connection.reply(to: held, [])
            replayPresent(to: sender)
        }
    }

    /// A new subscriber hears of the keyboards already up as a watcher started now would: a
    /// willShow and a didShow each, from off screen through its edge, nothing measured.
    private func replayPresent(to name: String) {
        guard let subscriber = subscribers[name] else { return }
        for state in manager.visibleKeyboards {
            var judged = state
            judged.isLocal = subscriber.identity.isLocal(given: state.focus)
            let begin =
                state.hasKnownFrame
                ? state.output.map { state.frame.movedOffScreen(through: state.dockedEdge ?? .bottom, of: $0.frame) }
                    ?? state.frame.offsetBy(dx: 0, dy: state.frame.height) : .zero
            for event in [KeyboardEvent.willShow, .didShow] {
                let update = KeyboardUpdate(
                    event: event, state: judged, backend: manager.backendName, beginFrame: begin, endFrame: state.frame,
                    timing: .unknown, isVisible: true)
                emit("SubscriberEvent", writer.line(for: update), to: name)
            }
        }
    }

    private var pidQueries: [Int: BusSlot] = [:]

    private func hold(_ call: BusMessage) -> Int {
        let id = nextWaiting
        nextWaiting += 1
        waiting[id] = call
        return id
    }

    private func release(_ id: Int) -> BusMessage? {
        pidQueries.removeValue(forKey: id)
        return waiting.removeValue(forKey: id)
    }

    private func unsubscribe(_ call: BusMessage) {
        if let sender = call.sender { forget(sender) }
        try? connection.reply(to: call, [])
    }

    private func ownerChanged(_ message: BusMessage) {
        guard message.hasSignature("sss"), let name = try? message.readString(), (try? message.readString()) != nil,
            let newOwner = try? message.readString(), newOwner.isEmpty
        else { return }
        forget(name)
    }

    private func forget(_ name: String) {
        guard subscribers.remove(name) != nil else { return }
        armIdle()
    }

    private func state(_ call: BusMessage) {
        let identity = call.sender.flatMap { subscribers[$0]?.identity }
        let keyboards = manager.visibleKeyboards.map { state -> KeyboardState in
            var judged = state
            judged.isLocal = identity?.isLocal(given: state.focus)
            return judged
        }
        let text = writer.lines(forState: keyboards, services: manager.keyboardServices).joined()
        try? connection.reply(to: call, [.string(text)])
    }

    private func request(_ call: BusMessage, show: Bool) {
        guard waiting.count < configuration.maximumSubscribers else {
            return refuse(call, SessionServiceNames.errorPrefix + "LimitsExceeded", "too many requests waiting")
        }
        let id = hold(call)
        let loop = loop
        let object = LoopConfined(self)
        let finish: @Sendable (Result<Void, KeyboardControlError>) -> Void = { result in
            // The manager answers on its loop or the caller's thread: the reply goes from here.
            loop.perform { object.value?.answer(id, result) }
        }
        if show { manager.showKeyboard(completion: finish) } else { manager.hideKeyboard(completion: finish) }
    }

    private func answer(_ id: Int, _ result: Result<Void, KeyboardControlError>) {
        guard let call = release(id) else { return }
        switch result {
        case .success: try? connection.reply(to: call, [])
        case .failure(let error):
            let name: String
            switch error {
            case .unsupported: name = "Unsupported"
            case .notVisible: name = "NotVisible"
            case .failed: name = "Failed"
            }
            refuse(call, SessionServiceNames.errorPrefix + name, error.description)
        }
        pump.needsProcessing()
    }

    // MARK: - Idle

    private func armIdle() {
        guard subscribers.isEmpty, let seconds = configuration.idleExit else { return }
        pump.timer = MonotonicClock.now() + seconds
    }

    private func disarmIdle() { pump.timer = nil }

    private func idleCheck() {
        guard subscribers.isEmpty else { return }
        // A request still waiting keeps the service up a little longer.
        if !waiting.isEmpty { return armIdle() }
        onIdle?()
    }

    // MARK: - End

    /// Leaves the bus: the object, the subscriptions, the requests still waiting. Idempotent.
    func close() {
        slot = nil
        pidQueries.removeAll()
        waiting.removeAll()
        for name in subscribers.names { subscribers.remove(name) }
        pump.close()
    }
}

/// An object of the service's loop, carried weakly through another thread's closure and used
/// only back on that loop (``KeyboardRunLoop/perform(_:)``).
final class LoopConfined<Value: AnyObject>: @unchecked Sendable {
    weak var value: Value?
    init(_ value: Value) { self.value = value }
}
