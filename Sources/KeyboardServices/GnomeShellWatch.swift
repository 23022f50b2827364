import Glibc
import KeyboardBackendInterface
import Synchronization
import SystemdBus

/// The package's GNOME Shell extension heard on a session bus connection of its own, in the run
/// loop through a ``BusPump``: its signals (taken only from `org.gnome.Shell`'s owner), the shell
/// coming and going (NameOwnerChanged), the extension being disabled (`Stopping`) and enabled
/// again (`Started`); show and hide requests. Used on the loop's thread only.
final class GnomeShellWatch {
    // Not Sendable: created on the loop's thread and used there only; the service keeps it
    // loop-bound, to reach it through `loop.perform` and to close it from `stop`, on that thread.

    /// How long start-up calls may wait (the loop's other sources wait meanwhile).
    static let startTimeout = 1.0
    /// How long a show or hide request or a state read waits for its reply.
    static let requestTimeout = 5.0

    private let channel: WatchChannel
    /// The shell's unique name while it runs.
    private let ownership = NameOwnership()
    private var owner: String? {
        get { ownership.owner }
        set { ownership.owner = newValue }
    }
    private var shellVersion: String?
    /// The focus the extension sent this watcher last (just before each `VisibilityChanged`).
    private var lastFocus: CompanionReport.Focus?
    /// The processes whose windows the shell is asked to leave in place (``leaveInPlace(_:)``).
    private var inPlace: [Int32] = []
    /// Whether a list that was not empty went to the extension since it last started.
    private var sentInPlace = false
    private let changed: (KeyboardServiceState) -> Void
    private(set) var current = KeyboardServiceState(status: .unknown)
    var isClosed: Bool { channel.isClosed }

    init(environment: [String: String], context: LoopContext, changed: @escaping (KeyboardServiceState) -> Void)
        throws(BusFailure)
    {
        channel = try WatchChannel(environment: environment)
        let connection = channel.connection
        self.changed = changed
        // The extension tells the focus, and takes show and hide requests, only from a connection
        // that owns a name in the watchers' namespace: one of this connection's own.
        _ = try connection.requestName(Self.watcherName())
        // Subscribed before asking, so that nothing between the answer and the first signal is lost.
        try channel.listen(
            "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(GnomeShellProbe.shellName)'",
            from: .bus
        ) { [unowned self] in self.ownerChanged($0) }
        try channel.listen(
            // No sender in the rule: the shell's connection changes when it restarts, and
            // `signal` takes only what the name's current owner sends.
            "type='signal',path='\(GnomeShellProbe.objectPath)',interface='\(GnomeShellProbe.interface)'",
            from: ownership.origin
        ) { [unowned self] in self.signal($0) }
        let probe = GnomeShellProbe.run(on: connection, timeout: Self.startTimeout)
        if case .noBus(let reason) = probe.finding { throw BusFailure(code: ECONNREFUSED, message: reason) }
        owner = probe.owner
        shellVersion = probe.shellVersion
        current = Self.state(probe)
        channel.join(context) { [unowned self] reason in self.fail(reason: reason) }
    }

    /// A name in the watchers' namespace no other connection owns:
    /// `org.keyboardadapter.Watcher.Gnome.p<pid>_<n>`.
    static func watcherName() -> String {
        let number = watcherNames.add(1, ordering: .relaxed).newValue
        return "org.keyboardadapter.Watcher.Gnome.p\(getpid())_\(number)"
    }

    private static let watcherNames = Atomic<Int>(0)

    /// The service state a probe amounts to.
    static func state(_ probe: GnomeShellProbe) -> KeyboardServiceState {
        if case .noBus(let reason) = probe.finding { return KeyboardServiceState(status: .busUnavailable(reason)) }
        guard probe.finding == .ready, let state = probe.state else {
            return KeyboardServiceState(
                status: probe.finding == .noShell ? .notRunning : .running, isVisible: nil, pid: probe.shellPID,
                companionStatus: probe.problem)
        }
        return KeyboardServiceState(
            status: .running, isVisible: state.visible, pid: probe.shellPID,
            companion: report(state),
            companionStatus: status(shellVersion: probe.shellVersion, state: state)
                + (probe.keyboardEnabled == false
                    ? "; the keyboard is disabled (org.gnome.desktop.a11y.applications screen-keyboard-enabled)" : ""))
    }

    private static func report(_ state: GnomeShellMessages.KeyboardState, destination: Rect? = nil)
        -> CompanionReport
    {
        CompanionReport(
            panel: state.frame.map {
                CompanionReport.Panel(frame: $0, outputName: state.output?.name, destination: destination)
            },
            focus: state.focus, output: state.output)
    }

    private static func status(shellVersion: String?, state: GnomeShellMessages.KeyboardState) -> String {
        "extension \(GnomeShellProbe.release) in GNOME Shell \(shellVersion ?? "(version unknown)") reports the "
            + "keyboard \(state.visible ? "visible" : "hidden")"
            + (state.frame.map { " at \($0)" } ?? "") + (state.output.map { " on \($0)" } ?? "")
    }

    // MARK: - Signals

    private func signal(_ message: BusMessage) {
        // Only the connection that owns org.gnome.Shell speaks for the shell.
        guard let member = message.member.name else { return }
        switch member {
        case "Focus":
            guard let focus = GnomeShellMessages.focusSignal(message) else { return }
            lastFocus = focus
        case "VisibilityChanged":
            // It says everything there is to say: believed also before a state was read.
            guard let (state, target) = GnomeShellMessages.visibilityChanged(message, focus: lastFocus) else {
                return
            }
            lastFocus = nil
            var next = current
            next.status = .running
            next.problem = nil
            next.isVisible = state.visible
            next.companion = Self.report(state, destination: target)
            next.companionStatus = Self.status(shellVersion: shellVersion, state: state)
            update(next)
        case "Moved":
            // A step means something only once the extension's state is known.
            guard let moved = GnomeShellMessages.moved(message), var report = current.companion else { return }
            var next = current
            let destination = report.panel?.destination
            report.panel = moved.map {
                CompanionReport.Panel(frame: $0, outputName: report.output?.name, destination: destination)
            }
            next.companion = report
            update(next)
        case "Started":
            reread()
            sendInPlace()
        case "Stopping":
            update(
                KeyboardServiceState(
                    status: .running, pid: current.pid,
                    companionStatus: "the KeyboardAdapter extension was disabled: waiting for it to be enabled again"))
        default:
            return
        }
    }

    private func ownerChanged(_ message: BusMessage) {
        guard message.hasSignature("sss"), (try? message.readString()) == GnomeShellProbe.shellName,
            (try? message.readString()) != nil, let newOwner = try? message.readString()
        else { return }
        owner = newOwner.isEmpty ? nil : newOwner
        guard owner != nil else {
            // The shell went away (ended, or restarted on X11): its keyboard with it.
            return update(
                KeyboardServiceState(
                    status: .notRunning, companionStatus: "GNOME Shell went away: waiting for it to come back"))
        }
        update(
            KeyboardServiceState(
                status: .running, companionStatus: "GNOME Shell started: waiting for the KeyboardAdapter extension"))
        // The extension may already be enabled (its Started was sent before the name moved).
        reread()
        sendInPlace()
    }

    /// Reads the extension's state again (after `Started` or a new shell), asynchronously.
    private func reread() {
        let call = BusCall(
            destination: GnomeShellProbe.shellName, path: GnomeShellProbe.objectPath,
            interface: GnomeShellProbe.interface, member: "GetState")
        send(call) { [unowned self] reply in
            guard let reply, reply.error == nil, let state = GnomeShellMessages.state(reply) else { return }
            self.update(
                KeyboardServiceState(
                    status: .running, isVisible: state.visible, pid: self.current.pid, companion: Self.report(state),
                    companionStatus: Self.status(shellVersion: self.shellVersion, state: state)))
        }
        if current.pid == nil {
            send(.busDriver("GetConnectionUnixProcessID", [.string(GnomeShellProbe.shellName)])) {
                [unowned self] reply in
                if let state = self.current.withProcessID(from: reply) { self.update(state) }
            }
        }
    }

    // MARK: - Requests

    /// Sends `Show` or `Hide`; `completion` gets the outcome on the loop's thread.
    func request(visible: Bool, completion: @escaping @Sendable (Result<Void, KeyboardControlError>) -> Void) {
        guard !isClosed, current.companion != nil else {
            return completion(
                .failure(.unsupported("gnome-shell: \(current.companionStatus ?? current.description)")))
        }
        let call = BusCall(
            destination: GnomeShellProbe.shellName, path: GnomeShellProbe.objectPath,
            interface: GnomeShellProbe.interface, member: visible ? "Show" : "Hide")
        send(call) { reply in
            guard let reply else { return completion(.failure(.failed("gnome-shell: the session bus went away"))) }
            if let error = reply.error {
                completion(.failure(.failed("GNOME Shell refused: \(error)")))
            } else {
                completion(.success(()))
            }
        }
    }

    /// Asks the extension to leave the windows of `pids` in place (`LeaveInPlace`), now and each
    /// time it starts again; an empty list ends the request. The extension holds it for this
    /// connection, and forgets it when the connection leaves the bus.
    func leaveInPlace(_ pids: [Int32]) {
        let bounded = Array(pids.filter { $0 > 0 }.prefix(64))
        guard bounded != inPlace else { return }
        inPlace = bounded
        sendInPlace()
    }

    private func sendInPlace() {
        guard !isClosed, owner != nil, !(inPlace.isEmpty && !sentInPlace) else { return }
        sentInPlace = !inPlace.isEmpty
        let call = BusCall(
            destination: GnomeShellProbe.shellName, path: GnomeShellProbe.objectPath,
            interface: GnomeShellProbe.interface, member: "LeaveInPlace",
            arguments: [.uint32s(inPlace.map { UInt32($0) })])
        // Its answer changes nothing: a refusal leaves the shell moving windows as it does.
        send(call) { _ in }
    }

    private func send(_ call: BusCall, handler: @escaping (BusMessage?) -> Void) {
        channel.send(call, timeout: Self.requestTimeout, handler: handler)
    }

    private func update(_ state: KeyboardServiceState) {
        guard state != current else { return }
        current = state
        changed(state)
    }

    // MARK: - End

    /// Unsubscribes, fails the requests still waiting, and closes the connection. Idempotent.
    func close() { channel.close() }

    private func fail(reason: String) {
        close()
        update(KeyboardServiceState(status: .busUnavailable(reason)))
    }
}
