import Glibc
import KeyboardBackendInterface
import SystemdBus

/// One keyboard service watched on a session bus connection of its own, in the run loop through
/// a ``BusPump``. Follows the name's owner (NameOwnerChanged) and the visible property
/// (PropertiesChanged), and sends show and hide requests. Used on the loop's thread only.
final class ServiceWatch {
    // Not Sendable: created on the loop's thread and used there only; the service keeps it
    // loop-bound, to reach it through `loop.perform` and to close it from `stop`, on that thread.

    /// How long start-up calls may wait for the bus (the loop's other sources wait meanwhile).
    static let startTimeout = 1.0
    /// How long a show or hide request waits for its reply.
    static let requestTimeout = 5.0
    private let channel: WatchChannel
    private var connection: BusConnection { channel.connection }
    private let interface: ServiceInterface
    private let changed: (KeyboardServiceState) -> Void
    /// Who owns the keyboard's bus name now: only its signals are believed.
    private let ownership = NameOwnership()
    /// When to read the property again after an argument-less change signal, until it changes:
    /// KWin 6 signals a show before its `visible` turns true, and sends no second signal.
    private var rereads: [Double] = [] {
        didSet { channel.pump?.timer = rereads.first }
    }
    /// After a change signal, the property is read again this long after it (seconds), until a
    /// reading differs: KWin 6.3's `visible` turns true 40 to 300 ms after its signal (the first,
    /// cold show the latest), so the reads go on, further apart, for a second at most.
    static let rereadOffsets = [0.04, 0.08, 0.14, 0.22, 0.3, 0.42, 0.6, 0.8, 1.0]
    var isClosed: Bool { channel.isClosed }
    /// The KWin script, while it is loaded.
    private var companion: KWinCompanion?
    private var companionFailure: String?
    private(set) var current = KeyboardServiceState(status: .unknown)

    /// Connects, subscribes to the signals, asks the current state, and adds itself to the loop.
    /// Throws when the bus cannot be used at all.
    init(
        interface: ServiceInterface, environment: [String: String], context: LoopContext,
        changed: @escaping (KeyboardServiceState) -> Void
    ) throws(BusFailure) {
        channel = try WatchChannel(environment: environment)
        self.interface = interface
        self.changed = changed
        // Subscribed before asking, so that no change between the answer and the first signal is lost.
        try channel.listen(interface.ownerRule, from: .bus) { [unowned self] in self.ownerChanged($0) }
        try channel.listen(interface.propertiesRule, from: ownership.origin) { [unowned self] in
            self.propertiesChanged($0)
        }
        if let rule = interface.changeRule {
            // A change signal carries no value: the property is read again.
            try channel.listen(rule, from: ownership.origin) { [unowned self] _ in
                self.refreshVisible()
                let now = MonotonicClock.now()
                self.rereads = Self.rereadOffsets.map { now + $0 }
            }
        }
        ownership.owner = ServiceProbe.owner(of: interface.busName, on: connection, timeout: Self.startTimeout)
        current = ServiceProbe.state(of: interface, on: connection, timeout: Self.startTimeout)
        if case .busUnavailable = current.status { throw BusFailure(code: ECONNREFUSED, message: "\(current)") }
        if interface.loadsKWinCompanion, current.isRunning { startCompanion(environment: environment) }
        channel.join(context) { [unowned self] reason in self.fail(reason: reason) }
        channel.pump?.timer = rereads.first
        channel.pump?.onTimer = { [unowned self] in self.rereadDue() }
    }

    /// A reading after a change signal is due.
    private func rereadDue() {
        if let reread = rereads.first, reread <= MonotonicClock.now() {
            rereads.removeFirst()
            refreshVisible()
        }
    }

    /// Loads the KWin script; without it the state says why.
    private func startCompanion(environment: [String: String]) {
        var failure: String?
        companion = KWinCompanion(connection: connection, environment: environment, failure: &failure)
        companion?.onChange = { [unowned self] in self.update(self.current) }
        companion?.awaitFirstReports(timeout: Self.startTimeout)
        companionFailure = failure.map { "no KWin script: \($0)" }
        current = withCompanion(current)
    }

    /// `state` with what the companion reports now.
    private func withCompanion(_ state: KeyboardServiceState) -> KeyboardServiceState {
        var state = state
        state.companion = companion?.report
        state.companionStatus = companion?.status ?? companionFailure
        return state
    }

    // MARK: - Requests

    /// Sends a show or hide request; `completion` gets the outcome on the loop's thread.
    func request(visible: Bool, completion: @escaping @Sendable (Result<Void, KeyboardControlError>) -> Void) {
        guard !isClosed else {
            return completion(.failure(.failed("\(interface.name): \(current)")))
        }
        guard current.isRunning else {
            return completion(
                .failure(.unsupported("\(interface.name) is not running (\(interface.busName) has no owner)")))
        }
        if visible && interface.asksWillShow {
            return askWillShow { [unowned self] refusal in
                if let refusal { return completion(.failure(.failed(refusal))) }
                sendRequest(visible: visible, completion: completion)
            }
        }
        sendRequest(visible: visible, completion: completion)
    }

    private func sendRequest(
        visible: Bool, completion: @escaping @Sendable (Result<Void, KeyboardControlError>) -> Void
    ) {
        let name = interface.name
        send(interface.call(visible: visible), timeout: Self.requestTimeout) { reply in
            guard let reply else { return completion(.failure(.failed("\(name): the session bus went away"))) }
            if let error = reply.error {
                completion(.failure(.failed("\(name) refused: \(error)")))
            } else {
                completion(.success(()))
            }
        }
    }

    /// Asks KWin whether a show would bring its keyboard on screen (`willShowOnActive`); `handler`
    /// gets nil when it would (or KWin does not say), else why not, naming its mode.
    private func askWillShow(_ handler: @escaping (String?) -> Void) {
        send(KWinKeyboardMode.willShowOnActive, timeout: Self.requestTimeout) { [unowned self] reply in
            guard let reply, reply.error == nil, reply.hasSignature("b"), (try? reply.readBool()) == false else {
                return handler(nil)
            }
            send(KWinKeyboardMode.get("mode"), timeout: Self.requestTimeout) { [unowned self] reply in
                if let mode = reply.flatMap(KWinKeyboardMode.parse) { return handler(mode.refusal) }
                send(KWinKeyboardMode.get("enabled"), timeout: Self.requestTimeout) { reply in
                    handler((reply.flatMap(KWinKeyboardMode.parse) ?? .unknown).refusal)
                }
            }
        }
    }

    /// Sends `call`; `handler` gets the reply, or nil when the connection closed first.
    private func send(_ call: BusCall, timeout: Double, handler: @escaping (BusMessage?) -> Void) {
        channel.send(call, timeout: timeout, handler: handler)
    }

    // MARK: - Signals

    private func ownerChanged(_ message: BusMessage) {
        guard message.hasSignature("sss"), (try? message.readString()) == interface.busName,
            (try? message.readString()) != nil, let newOwner = try? message.readString()
        else { return }
        ownership.owner = newOwner.isEmpty ? nil : newOwner
        if newOwner.isEmpty {
            // A killed keyboard says nothing else: its name losing its owner is its hide.
            update(KeyboardServiceState(status: .notRunning))
        } else {
            update(KeyboardServiceState(status: .running))
            refreshVisible()
            send(.busDriver("GetConnectionUnixProcessID", [.string(interface.busName)]), timeout: Self.requestTimeout) {
                [unowned self] reply in
                if let state = self.current.withProcessID(from: reply) { self.update(state) }
            }
        }
    }

    private func propertiesChanged(_ message: BusMessage) {
        apply(PropertyReading.changed(message, interface: interface.interface, property: interface.visibleProperty))
    }

    private func refreshVisible() {
        send(interface.getVisible, timeout: Self.requestTimeout) { [unowned self] reply in
            guard let reply else { return }
            if let error = reply.error {
                // Gone meanwhile: NameOwnerChanged says so.
                if !error.isNoOwner { self.noteProblem("reading \(self.interface.visibleProperty): \(error)") }
                return
            }
            self.apply(PropertyReading.reply(reply))
        }
    }

    private func apply(_ reading: PropertyReading) {
        var state = current
        switch reading {
        case .value(let visible):
            // The change a signal announced has come: no more reading again.
            if visible != current.isVisible { rereads.removeAll() }
            state.isVisible = visible
            // A running keyboard speaks for itself, whatever was heard of its owner so far.
            state.status = .running
        case .wrongType(let signature):
            state.isVisible = nil
            state.problem = "\(interface.visibleProperty) has type '\(signature)', not 'b'"
        case .malformed(let reason):
            state.problem = reason
        case .invalidated:
            refreshVisible()
            return
        case .absent:
            return
        }
        update(state)
    }

    private func noteProblem(_ problem: String) {
        var state = current
        state.problem = problem
        update(state)
    }

    private func update(_ state: KeyboardServiceState) {
        let state = withCompanion(state)
        // onboard repeats itself (Visible true twice after a Show): only changes are passed on.
        guard state != current else { return }
        current = state
        changed(state)
    }

    // MARK: - End

    /// Unsubscribes, fails the requests still waiting, and closes the connection. Idempotent.
    func close() {
        guard !isClosed else { return }
        companion?.unload()
        companion = nil
        channel.close()
    }

    private func fail(reason: String) {
        close()
        update(KeyboardServiceState(status: .busUnavailable(reason)))
    }
}
