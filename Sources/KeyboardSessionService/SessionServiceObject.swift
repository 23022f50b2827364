import Glibc
import KeyboardAdapterCore
import KeyboardBackendInterface
import SystemdBus

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
    /// The connection that asks the bus who callers are when the bus hands out their processes
    /// (`ProcessFD`, which only a connection that takes descriptors receives); nil when it does
    /// not, or once that connection broke: the service's own connection asks then.
    private var identityPump: BusPump?
    private var connection: BusConnection { pump.connection }
    private let manager: KeyboardManager
    private let configuration: SessionServiceConfiguration
    private let loop: KeyboardRunLoop
    private var slot: BusSlot?
    /// Follows connections joining the bus, to date each (see ``heard``).
    private var arrivals: BusSlot?
    private var subscribers = SessionSubscribers()
    /// Show or hide requests waiting for the keyboard: bounded in all, and for each client.
    private var waiting: [Int: Waiting] = [:]
    private var waitingShares = ShareCounts()
    private struct Waiting {
        var call: BusMessage
        /// The client's share it counts against.
        var share: String
    }
    private var nextWaiting = 0
    /// The connections that made calls needing to know who they are, by unique name: each one
    /// identified once (the bus asked for its credentials, its sandbox read), its calls held
    /// meanwhile, at most ``maximumHeldPerConnection`` of them; forgotten when it leaves the bus.
    private var peers: [String: Peer] = [:]
    private struct Peer {
        /// Who it is, once the bus said.
        var caller: SessionCaller?
        /// Its calls waiting for that, in their order.
        var held: [(call: BusMessage, next: (BusMessage, SessionCaller) -> Void)] = []
        /// The credentials asked of the bus, while the answer has not come.
        var query: BusSlot?
        /// Follows the connection's name: its going away forgets it.
        var watch: BusSlot?
        /// When it last called (a count of calls), for forgetting the one unused longest.
        var used: Int
        /// When the service first heard of it (see ``heard``).
        var heard: BootTime
    }
    /// When the service first heard of each connection (the bus's signal that it joined, said
    /// when it says Hello; else its first call to the service), for telling the process that
    /// made a connection from a later one given its pid (see
    /// ``SessionCaller/init(credentials:heard:)``); the oldest forgotten beyond
    /// ``maximumHeard``, and a connection forgotten is heard again at its next call (later,
    /// which proves less but nothing false).
    private var heard: [String: BootTime] = [:]
    private var heardOrder: [String] = []
    /// The most connections whose first call's time is kept.
    static let maximumHeard = 4096
    /// How many connections are being identified now.
    private var identifying = 0
    private var calls = 0
    /// How many callers were said in the log to be trusted with nothing.
    private var distrusted = 0
    /// The most calls of one connection held while it is identified; the next is refused.
    static let maximumHeldPerConnection = 8
    /// The sandboxes of the last focus's processes, for the sandboxed subscribers' verdicts.
    private var sandboxes = FocusSandboxes()
    /// The keyboards' shows, numbered for the subscribers' verdicts.
    private var shows = ShowNumbers()
    /// The visible keyboards, `local` unjudged: what the properties say now.
    private var present: [KeyboardState] = []
    /// The connections whose process has its windows left in place (``leaveInPlace(_:)``), with
    /// that process, by unique name: until each leaves the bus or asks otherwise.
    private var inPlace: [String: Int32] = [:]
    /// Called once when no client has subscribed for the idle time.
    var onIdle: (() -> Void)?

    init(
        connection: BusConnection, identity: BusConnection? = nil, context: LoopContext, manager: KeyboardManager,
        configuration: SessionServiceConfiguration
    ) throws(BusFailure) {
        pump = BusPump(connection, context: context)
        identityPump = identity.map { BusPump($0, context: context) }
        self.manager = manager
        self.configuration = configuration
        loop = context.runLoop!
        refreshPresent()
        slot = try connection.addObject(SessionServiceNames.objectPath) { [unowned self] call in self.received(call) }
        // A connection's unique name appears (NameOwnerChanged with no old owner) when it says
        // Hello, before it can send anything: what it sends later comes after this signal.
        arrivals = try? connection.addMatch(
            "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg1=''", from: .bus
        ) { [unowned self] message in self.arrived(message) }
        pump.onTimer = { [unowned self] in self.idleCheck() }
        pump.onBroken = { [unowned self] _ in self.onIdle?() }
        identityPump?.onBroken = { [unowned self] reason in self.identityBroken(reason) }
        armIdle()
    }

    // MARK: - Publishing

    /// Publishes an event to everyone, without `local`, numbered with its show. When a show
    /// starts, each subscriber whose verdict differs from the last one it was sent is sent the new
    /// one first (see ``ShowNumbers``): D-Bus keeps the order of one sender's messages to each
    /// receiver, so a subscriber has its verdict before the event it holds for.
    func publish(_ update: KeyboardUpdate) {
        let (show, starts) = shows.number(for: update)
        if starts {
            for name in subscribers.names { sendVerdict(show, focus: update.focus, to: name) }
        }
        var anonymous = update
        anonymous.isLocal = nil
        emit("Event", WatcherValues.update(anonymous, show: show))
        if update.event == .didHide { shows.ended(update.keyboard.id) }
        let before = present
        refreshPresent()
        if before != present {
            let changed: [BusValue] = [
                .string(SessionServiceNames.interfaceName),
                .dictionary([("Visible", .bool(!present.isEmpty)), ("Keyboards", WatcherValues.keyboards(present))]),
                .strings([]),
            ]
            try? connection.emit(
                path: SessionServiceNames.objectPath, interface: "org.freedesktop.DBus.Properties",
                member: "PropertiesChanged", changed)
        }
        pump.needsProcessing()
    }

    /// Sends subscriber `name` its verdict for a show with `focus`, unless it was sent that one last.
    private func sendVerdict(_ show: UInt32, focus: FocusedTopLevel?, to name: String) {
        guard let subscriber = subscribers[name] else { return }
        let local = subscriber.judgement.isLocal(given: focus, sandboxes: &sandboxes)
        // Where the display server shows the window goes to the app whose window it is alone.
        let window = local == true ? focus?.frame : nil
        guard subscriber.lastVerdict != .sent(local, window: window) else { return }
        subscribers.setVerdict(name, .sent(local, window: window))
        emit("Verdict", WatcherValues.verdict(show: show, local: local, window: window), to: name)
    }

    /// Publishes a progress frame to everyone, numbered with its show, while a subscriber asks
    /// for them.
    func publish(_ progress: KeyboardProgress) {
        guard subscribers.wantProgress else { return }
        var anonymous = progress
        anonymous.state.isLocal = nil
        emit(
            "Progress",
            WatcherValues.progress(anonymous, show: shows.number(ofKeyboard: progress.state.keyboard.id) ?? 0))
        pump.needsProcessing()
    }

    private func emit(_ member: String, _ value: BusValue, to destination: String? = nil) {
        emit(member, [value], to: destination)
    }

    private func emit(_ member: String, _ values: [BusValue], to destination: String? = nil) {
        // When the bus takes no more for one client (one that never reads), that one misses it
        // and the others go on.
        try? connection.emit(
            path: SessionServiceNames.objectPath, interface: SessionServiceNames.interfaceName, member: member,
            values, destination: destination)
    }

    /// The visible keyboards without `local`, as the properties say them.
    private func refreshPresent() {
        present = manager.visibleKeyboards.map { state -> KeyboardState in
            var anonymous = state
            anonymous.isLocal = nil
            anonymous.focus = nil
            return anonymous
        }
    }

    // MARK: - Calls

    private func received(_ call: BusMessage) -> Bool {
        calls += 1
        if let sender = call.sender { hear(sender) }
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
        case (SessionServiceNames.interfaceName, "LeaveWindowsInPlace"): leaveInPlace(call)
        default: return false
        }
        pump.needsProcessing()
        return true
    }

    /// A name got an owner: a connection's unique name is dated as it joins the bus.
    private func arrived(_ message: BusMessage) {
        guard message.hasSignature("sss"), let name = try? message.readString(), name.hasPrefix(":"),
            let oldOwner = try? message.readString(), oldOwner.isEmpty,
            let newOwner = try? message.readString(), newOwner == name
        else { return }
        hear(name)
    }

    /// Notes when the service first heard of `sender`.
    private func hear(_ sender: String) {
        guard heard[sender] == nil else { return }
        if heardOrder.count >= Self.maximumHeard {
            heard[heardOrder.removeFirst()] = nil
        }
        heard[sender] = BootTime.now()
        heardOrder.append(sender)
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
            ("Visible", .bool(!present.isEmpty)), ("Keyboards", WatcherValues.keyboards(present)),
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

    /// Answers a subscriber's `Subscribe` again, whose options (and with them the verdicts) it
    /// replaces; false for a caller not subscribed.
    private func resubscribed(_ call: BusMessage, _ sender: String, _ options: SubscribeOptions) -> Bool {
        guard subscribers[sender] != nil else { return false }
        subscribers.update(sender, options: options)
        try? connection.reply(to: call, [])
        sendPresentVerdicts(to: sender)
        return true
    }

    /// Refuses `call` when the service has as many subscribers as it takes.
    private func subscribersFull(_ call: BusMessage) -> Bool {
        guard subscribers.count >= configuration.maximumSubscribers else { return false }
        limitsExceeded(call, "\(configuration.maximumSubscribers) clients are subscribed already")
        return true
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
        guard !resubscribed(call, sender, options), !subscribersFull(call) else { return }
        identify(call) { [unowned self] call, caller in
            // The subscription may have come, or the places gone, while the caller was identified.
            guard !resubscribed(call, sender, options), !subscribersFull(call) else { return }
            guard subscribers.perShare[caller.share] < configuration.maximumSubscribersPerClient else {
                return limitsExceeded(
                    call, "\(caller.share) has \(configuration.maximumSubscribersPerClient) subscriptions already")
            }
            subscribers.add(sender, SessionSubscribers.Subscriber(options: options, caller: caller))
            disarmIdle()
            try? connection.reply(to: call, [])
            replayPresent(to: sender)
        }
    }

    private func limitsExceeded(_ call: BusMessage, _ reason: String) {
        refuse(call, SessionServiceNames.errorPrefix + "LimitsExceeded", reason)
    }

    /// Passes `call` on with its caller: at once when its connection is known, else once the bus
    /// said who it is (`GetConnectionCredentials`) and its sandbox was read, which is done once per
    /// connection. Bounded before anything is known of the caller: at most
    /// ``maximumHeldPerConnection`` calls of one connection wait, and at most
    /// ``SessionServiceConfiguration/maximumSubscribers`` connections are identified at once. A
    /// caller the bus cannot tell is refused.
    private func identify(_ call: BusMessage, then next: @escaping (BusMessage, SessionCaller) -> Void) {
        guard let sender = call.sender else { return invalid(call, "a call without a sender") }
        if let known = peers[sender] {
            peers[sender]?.used = calls
            if let caller = known.caller { return next(call, caller) }
            guard known.held.count < Self.maximumHeldPerConnection else {
                return limitsExceeded(
                    call, "\(sender) has \(Self.maximumHeldPerConnection) calls waiting to be identified already")
            }
            peers[sender]?.held.append((call, next))
            return
        }
        guard identifying < configuration.maximumSubscribers else {
            return limitsExceeded(
                call, "\(configuration.maximumSubscribers) connections are waiting to be identified already")
        }
        forgetUnusedPeer()
        // Watched from before the bus says who the caller is, so that its end is never missed.
        let rule =
            "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
            + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(sender)'"
        let watch = try? connection.addMatch(rule, from: .bus) { [unowned self] message in self.ownerChanged(message) }
        let firstHeard = heard[sender] ?? BootTime.now()
        peers[sender] = Peer(
            caller: nil, held: [(call, next)], query: nil, watch: watch, used: calls, heard: firstHeard)
        identifying += 1
        askCredentials(of: sender, heard: firstHeard)
    }

    /// Asks the bus who `sender` is: on the connection that takes `ProcessFD` while there is one.
    private func askCredentials(of sender: String, heard: BootTime) {
        let asked = try? (identityPump?.connection ?? connection).callAsync(
            .busDriver("GetConnectionCredentials", [.string(sender)]), timeout: 5
        ) { [unowned self] reply in
            identified(sender, Self.caller(from: reply, heard: heard))
            pump.needsProcessing()
        }
        identityPump?.needsProcessing()
        pump.needsProcessing()
        if let asked {
            peers[sender]?.query = asked
        } else {
            identified(sender, nil)
        }
    }

    /// The bus answered who `sender` is (nil: it did not say): its held calls go on, or are refused.
    private func identified(_ sender: String, _ caller: SessionCaller?) {
        guard var peer = peers[sender], peer.caller == nil else { return }
        identifying -= 1
        let held = peer.held
        guard let caller else {
            peers[sender] = nil
            for (call, _) in held {
                refuse(call, SessionServiceNames.errorPrefix + "Failed", "the bus does not say who the caller is")
            }
            return
        }
        if case .unknown(let reason) = caller.sandbox { distrust(sender, caller, reason) }
        peer.caller = caller
        peer.held = []
        peer.query = nil
        peers[sender] = peer
        for (call, next) in held { next(call, caller) }
    }

    /// The connection asking who callers are broke (a reply's `ProcessFD` arriving with no
    /// descriptor left breaks it): the service's own asks from now on, again for the callers it
    /// was asking about (their answers will not come on it).
    private func identityBroken(_ reason: String) {
        identityPump = nil
        configuration.log("the connection asking the bus who callers are broke (\(reason)); the service's own asks now")
        for (name, peer) in peers where peer.caller == nil {
            peers[name]?.query = nil
            askCredentials(of: name, heard: peer.heard)
        }
    }

    /// Says in the log that a caller is trusted with nothing (the first 64 callers, then one in
    /// 1 000: a client opening connection after connection cannot flood the log).
    private func distrust(_ sender: String, _ caller: SessionCaller, _ reason: String) {
        distrusted += 1
        guard distrusted <= 64 || distrusted % 1000 == 0 else { return }
        configuration.log(
            "caller \(sender) (pid \(caller.pid)): its sandbox cannot be established (\(reason)); trusted with nothing"
                + (distrusted > 64 ? " (\(distrusted) such callers so far)" : ""))
    }

    /// Forgets the identified connection unused longest that is not subscribed, when as many are
    /// known as are kept (four times the subscribers): it is identified again if it calls again.
    private func forgetUnusedPeer() {
        guard peers.count >= 4 * configuration.maximumSubscribers else { return }
        // One whose windows are left in place is kept: its going away is what ends that.
        let unused = peers.filter { $0.value.caller != nil && subscribers[$0.key] == nil && inPlace[$0.key] == nil }
            .min {
                $0.value.used < $1.value.used
            }
        if let unused { peers[unused.key] = nil }
    }

    private static func caller(from reply: BusMessage, heard: BootTime) -> SessionCaller? {
        reply.credentials().flatMap { SessionCaller(credentials: $0, heard: heard) }
    }

    /// `LeaveWindowsInPlace(b)`: the caller's own process, as the bus proves it, has its windows
    /// left in place (or moved again, false) by the display server when a keyboard opens, until
    /// its connection leaves the bus. A caller in a sandbox, or whose sandbox is not known for
    /// certain, is refused: the windows of its processes are not told apart from others' here.
    private func leaveInPlace(_ call: BusMessage) {
        guard call.hasSignature("b"), let leave = try? call.readBool() else {
            return invalid(call, "LeaveWindowsInPlace takes a boolean (b)")
        }
        identify(call) { [unowned self] call, caller in
            guard let sender = call.sender else { return invalid(call, "a call without a sender") }
            guard case .none = caller.sandbox else {
                return refuse(
                    call, "org.freedesktop.DBus.Error.AccessDenied",
                    "only a process outside any sandbox may have its windows left in place")
            }
            if leave {
                guard inPlace[sender] != nil || inPlace.count < configuration.maximumSubscribers else {
                    return limitsExceeded(
                        call, "\(configuration.maximumSubscribers) connections have their windows left in place already"
                    )
                }
                inPlace[sender] = caller.pid
            } else {
                inPlace[sender] = nil
            }
            guard manager.leaveWindowsInPlace(processIDs: inPlaceProcesses) || !leave else {
                inPlace[sender] = nil
                return refuse(
                    call, SessionServiceNames.errorPrefix + "Unsupported",
                    "the \(manager.backendName) backend does not move windows for its keyboard")
            }
            try? connection.reply(to: call, [])
        }
    }

    /// The processes whose windows are left in place, each once, in order.
    private var inPlaceProcesses: [Int32] { Set(inPlace.values).sorted() }

    /// Sends subscriber `name` its verdicts for the shows of the keyboards up now, in the order
    /// of the shows: the broadcast events of those shows are then its own to read.
    private func sendPresentVerdicts(to name: String) {
        let numbered = manager.visibleKeyboards.compactMap { state in
            shows.number(ofKeyboard: state.keyboard.id).map { (show: $0, focus: state.focus) }
        }
        for (show, focus) in numbered.sorted(by: { $0.show < $1.show }) {
            sendVerdict(show, focus: focus, to: name)
        }
    }

    /// A new subscriber hears of the keyboards already up as a watcher started now would: a
    /// willShow and a didShow each, from off screen through its edge, nothing measured,
    /// addressed to it alone (`SubscriberEvent`), after its verdicts for their shows.
    private func replayPresent(to name: String) {
        sendPresentVerdicts(to: name)
        guard let subscriber = subscribers[name] else { return }
        for state in manager.visibleKeyboards {
            var judged = state
            judged.isLocal = subscriber.judgement.isLocal(given: state.focus, sandboxes: &sandboxes)
            judged.focus = nil
            let begin =
                state.hasKnownFrame
                ? state.output.map { state.frame.movedOffScreen(through: state.dockedEdge ?? .bottom, of: $0.frame) }
                    ?? state.frame.offsetBy(dx: 0, dy: state.frame.height) : .zero
            for event in [KeyboardEvent.willShow, .didShow] {
                let update = KeyboardUpdate(
                    event: event, state: judged, backend: manager.backendName, beginFrame: begin, endFrame: state.frame,
                    timing: .unknown, isVisible: true)
                emit("SubscriberEvent", WatcherValues.update(update), to: name)
            }
        }
    }

    /// Holds a request that waits for the keyboard, counted against `share`.
    private func hold(_ call: BusMessage, share: String) -> Int {
        let id = nextWaiting
        nextWaiting += 1
        waiting[id] = Waiting(call: call, share: share)
        waitingShares.add(share)
        return id
    }

    private func release(_ id: Int) -> BusMessage? {
        guard let held = waiting.removeValue(forKey: id) else { return nil }
        waitingShares.remove(held.share)
        return held.call
    }

    private func unsubscribe(_ call: BusMessage) {
        if let sender = call.sender, subscribers.remove(sender) != nil { armIdle() }
        try? connection.reply(to: call, [])
    }

    private func ownerChanged(_ message: BusMessage) {
        guard message.hasSignature("sss"), let name = try? message.readString(), (try? message.readString()) != nil,
            let newOwner = try? message.readString(), newOwner.isEmpty
        else { return }
        forget(name)
    }

    /// `name` left the bus: its subscription, who it was, and its calls still waiting to be
    /// identified go.
    private func forget(_ name: String) {
        if let peer = peers.removeValue(forKey: name), peer.caller == nil { identifying -= 1 }
        if inPlace.removeValue(forKey: name) != nil { manager.leaveWindowsInPlace(processIDs: inPlaceProcesses) }
        if heard.removeValue(forKey: name) != nil { heardOrder.removeAll { $0 == name } }
        guard subscribers.remove(name) != nil else { return }
        armIdle()
    }

    private func state(_ call: BusMessage) {
        let judgement = call.sender.flatMap { subscribers[$0]?.judgement }
        let keyboards = manager.visibleKeyboards.map { state -> KeyboardState in
            var judged = state
            judged.isLocal = judgement?.isLocal(given: state.focus, sandboxes: &sandboxes)
            judged.focus = nil
            return judged
        }
        try? connection.reply(
            to: call,
            [WatcherValues.state(keyboards, services: manager.keyboardServices, reserved: manager.reservedStrips)])
    }

    private func request(_ call: BusMessage, show: Bool) {
        identify(call) { [unowned self] call, caller in
            guard waitingShares[caller.share] < configuration.maximumSubscribersPerClient else {
                return limitsExceeded(
                    call,
                    "\(caller.share) has \(configuration.maximumSubscribersPerClient) requests waiting for the keyboard already"
                )
            }
            guard waiting.count < configuration.maximumSubscribers else {
                return limitsExceeded(
                    call, "\(configuration.maximumSubscribers) requests are waiting for the keyboard already")
            }
            let id = hold(call, share: caller.share)
            let loop = loop
            let object = LoopBound(WeakReference(self), loop: loop)
            let finish: @Sendable (Result<Void, KeyboardControlError>) -> Void = { result in
                // The manager answers on its loop or the caller's thread: the reply goes from here.
                loop.perform { object.value.value?.answer(id, result) }
            }
            if show { manager.showKeyboard(completion: finish) } else { manager.hideKeyboard(completion: finish) }
        }
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
        if !waiting.isEmpty || identifying > 0 { return armIdle() }
        onIdle?()
    }

    // MARK: - End

    /// Leaves the bus: the object, the subscriptions, the requests still waiting. Idempotent.
    func close() {
        slot = nil
        arrivals = nil
        identityPump?.close()
        identityPump = nil
        peers.removeAll()
        if !inPlace.isEmpty {
            inPlace.removeAll()
            manager.leaveWindowsInPlace(processIDs: [])
        }
        identifying = 0
        waiting.removeAll()
        waitingShares.removeAll()
        for name in subscribers.names { subscribers.remove(name) }
        pump.close()
    }
}
