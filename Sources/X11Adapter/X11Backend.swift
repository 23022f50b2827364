import CX11
import Glibc
@_spi(BackendRun) import KeyboardBackendInterface
import LoopThreadSlice
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The X11 backend: follows on-screen keyboard windows on an X server (also XWayland) and hands
/// what it sees to the core as observations.
///
/// Its connection is one source of the manager's run loop: no thread of its own, no timer, and no
/// CPU while nothing happens on the server.
public final class X11Backend: KeyboardBackend {
    /// The registration the `KeyboardAdapter` umbrella adds to the registry: name `x11`, chosen
    /// when `DISPLAY` is set, preferred in `XDG_SESSION_TYPE=x11` sessions.
    public static let registration = BackendRegistry.Registration(
        name: "x11", hint: BackendSessionHint(variables: ["DISPLAY"], sessionType: "x11"),
        make: { X11Backend() })

    /// The registry name.
    public let name = "x11"
    /// Frames, floating and docked keyboards, input-method panels, the output, the layout, and
    /// whether a keyboard came up for this app (judged by the focused window when it shows).
    /// With keyboard services, it can also show keyboards (while a service runs).
    public var capabilities: BackendCapabilities {
        var capabilities: BackendCapabilities = [
            .reportsFrames, .reportsFloating, .reportsDocking, .reportsOutputs, .reportsOwnership, .reportsLayout,
            .reportsInputMethodPanels, .hidesKeyboards,
        ]
        if !services.isEmpty { capabilities.insert(.showsKeyboards) }
        return capabilities
    }
    /// The display this backend connects to; nil means `$DISPLAY`.
    public let displayName: String?
    /// The rules keyboards are recognised by.
    public let rules: KeyboardRules
    /// What was wrong with the user's rules file, if anything (it is then ignored).
    public let rulesProblem: String?
    /// The keyboards' own services (onboard's), started by each run and stopped by its owner
    /// after the run: they name keyboards, give their pid, and take show and hide requests.
    public let services: [any KeyboardService]

    /// Creates a backend for `displayName` (nil: `$DISPLAY`) with the built-in rules, the user's
    /// rules file and `extraRules` (tried first), joined with `services`.
    public init(
        displayName: String? = nil, extraRules: [KeyboardRule] = [],
        environment: [String: String] = ProcessEnvironment.current, services: [any KeyboardService] = []
    ) {
        self.displayName = displayName
        self.services = services
        let loaded = KeyboardRules.load(environment: environment)
        rules = loaded.rules.adding(extraRules)
        rulesProblem = loaded.problem
    }

    /// Creates a backend with exactly the given rules (no rules file), joined with `services`.
    public init(displayName: String?, rules: KeyboardRules, services: [any KeyboardService] = []) {
        self.displayName = displayName
        self.services = services
        self.rules = rules
        rulesProblem = nil
    }

    /// Available when the X server answers; the detail names the display and the screen size.
    public func availability() -> BackendAvailability {
        do {
            let display = try XDisplay(name: displayName)
            defer { display.close() }
            let size = display.screenSize
            return .available(detail: "X server \(display.name), screen \(size.width)x\(size.height)")
        } catch {
            return .unreachable(reason: "\(error)")
        }
    }

    /// Asks the window manager to iconify the keyboard's window, the one way every X11 keyboard
    /// can be hidden from outside (none of them offers an X-level command of its own, apart from
    /// matchbox-keyboard's daemon mode, which needs a window manager too). The hide is then
    /// observed like any other. Uses a short connection of its own, not the event thread's.
    /// Throws `unsupported` without a window manager.
    public func requestHide(of keyboard: KeyboardIdentity) throws(KeyboardControlError) {
        guard keyboard.id.hasPrefix("x11:0x"), let window = Window(keyboard.id.dropFirst(6), radix: 16) else {
            throw .notVisible(keyboard.id)
        }
        let display: XDisplay
        do {
            display = try XDisplay(name: displayName)
        } catch {
            throw .failed("\(error)")
        }
        defer { display.close() }
        guard display.attributes(window)?.isMapped == true else { throw .notVisible(keyboard.id) }
        guard display.windowManagerName != nil else {
            throw .unsupported("\(keyboard.name) cannot be hidden on X11 without a window manager")
        }
        guard display.requestIconify(window) else { throw .failed("the iconify request for \(keyboard.id) failed") }
    }

    /// The window manager iconifies a keyboard whose service does not run (xvkbd, matchbox).
    public var hidesWithoutService: Bool { true }

    /// X11 can hide a keyboard (the window manager iconifies it) but not show one: a window
    /// manager can restore an iconified window, not a withdrawn one.
    public func requestLimitation(_ what: String) -> String {
        "X11 cannot \(what) a keyboard by itself (a window manager can restore an iconified window, not a withdrawn one)"
    }

    /// Connects, delivers the keyboards already visible, and adds the connection to `loop`,
    /// whose thread then asks the kernel for a 0.1 ms time slice (honoured from Linux 6.12 on), so
    /// that it runs as soon as an event comes. Throws a `BackendFailure` when the server cannot be
    /// reached. `app`'s focused windows make a keyboard local.
    @_spi(BackendRun) public func open(in context: LoopContext, sink: any ObservationSink, app: AppIdentity) throws
        -> any BackendConnection
    {
        let display: XDisplay
        do {
            display = try XDisplay(name: displayName)
        } catch {
            throw BackendFailure(backend: name, reason: "\(error)")
        }
        // The services are asked first, so that the keyboards delivered at start carry what they
        // say. Their changes need no action here: on X11 the window is the truth.
        for service in services { service.start(in: context) { _ in } }
        let joined = services.isEmpty ? sink : ServiceJoinSink(inner: sink, services: services)
        let connection = X11Connection(
            display: display, rules: rules, app: app, sink: joined, context: context, backendName: name)
        connection.tracker.start()
        // The loop's thread is asked to take a short time slice (see `CThreadSlice`), so that an X
        // event is handled as soon as it comes, also on a busy machine. Where the kernel cannot
        // grant one, nothing changes.
        context.request(.shortTimeSlice)
        context.add(connection)
        return connection
    }

    /// The display, the screen, the window manager, the rules and the keyboards visible now.
    public func diagnose() -> [String] {
        var lines: [String] = []
        let display: XDisplay
        do {
            display = try XDisplay(name: displayName)
        } catch {
            return ["x11: unavailable: \(error)"]
        }
        defer { display.close() }
        let size = display.screenSize
        lines.append("x11: X server \(display.name), screen \(size.width)x\(size.height)")
        lines.append("x11: window manager: \(display.windowManagerName ?? "none (or not EWMH)")")
        // An EWMH window manager keeps _NET_ACTIVE_WINDOW (once something has been active).
        let active = display.values(display.root, "_NET_ACTIVE_WINDOW") != nil || display.windowManagerName != nil
        lines.append(
            "x11: focus for 'local': "
                + (active ? "_NET_ACTIVE_WINDOW" : "the X input focus (no window manager keeps _NET_ACTIVE_WINDOW)"))
        let monitors = display.monitors()
        lines.append(
            monitors.isEmpty
                ? "x11: monitors: no RandR; the whole screen is one output"
                : "x11: monitors (RandR): " + monitors.map { "\($0.name) \($0.frame)" }.joined(separator: ", "))
        if let layout = XkbLayout(display: display)?.current {
            lines.append("x11: input layout (XKB): \(layout)")
        } else {
            lines.append("x11: input layout: unknown (no usable XKB)")
        }
        lines.append("x11: event thread: " + LoopThreadTuning.sliceDescription)
        lines.append(
            "x11: \(rules.rules.count) keyboard rules" + (rulesProblem.map { " (rules file ignored: \($0))" } ?? ""))
        var seen: [KeyboardObservation] = []
        let tracker = WindowTracker(display: display, rules: rules) { seen.append($0) }
        tracker.start()
        for observation in seen {
            // A window manager's frame around the keyboard: its own window inside it too.
            let frame =
                observation.frame.map { "\($0)" + (observation.windowFrame.map { " (its window \($0))" } ?? "") }
                ?? "hidden"
            let docked = observation.isDocked == true ? " docked \(observation.dockedEdge?.rawValue ?? "")" : ""
            lines.append("x11: keyboard \(observation.keyboard.name) \(observation.keyboard.id) at \(frame)\(docked)")
        }
        if seen.isEmpty { lines.append("x11: no keyboard window is visible") }
        return lines + serviceDiagnosis(keyboards: seen, windowManager: display.windowManagerName)
    }
}

/// The X connection as a run-loop source: drain Xlib's queue before each wait, read when the
/// socket is readable, end when the connection breaks. Used on the loop's thread only.
final class X11Connection: LoopSource, BackendConnection {
    // Not Sendable: created by `open` on the loop's thread and used there only by the run's owner.
    let display: XDisplay
    let sink: any ObservationSink
    let backendName: String
    let tracker: WindowTracker
    private let context: LoopContext
    private var isClosed = false
    /// The connection's descriptor, which stays the same as long as the connection.
    private let descriptor: Int32

    init(
        display: XDisplay, rules: KeyboardRules, app: AppIdentity, sink: any ObservationSink, context: LoopContext,
        backendName: String
    ) {
        self.display = display
        self.sink = sink
        self.context = context
        self.backendName = backendName
        descriptor = display.fileDescriptor
        let identity = AppIdentityCell(app)
        self.identity = identity
        tracker = WindowTracker(
            display: display, rules: rules, appIdentity: { identity.value },
            deliver: { sink.deliver($0) })
    }

    /// The app's identity as the tracker reads it at each show.
    private let identity: AppIdentityCell

    func appIdentityChanged(_ identity: AppIdentity) { self.identity.value = identity }

    /// Whether the socket may hold what was not read yet: `poll()` said it is readable since the
    /// last read that emptied it (or nothing was read yet).
    private var mayHaveInput = true
    /// The connection's request mark right after the last read that emptied the socket; nil
    /// before the first.
    private var drainedMark: UInt64?

    func prepareToWait() -> (descriptor: Int32, events: Int16) {
        guard !isClosed else { return (-1, 0) }
        // Nothing came (poll() said nothing), nothing was asked since the queue was left empty
        // and nothing waits to be reported: a turn for another source (a settle deadline) costs
        // one look at the request mark.
        if !mayHaveInput, !tracker.hasObservationsToFlush, drainedMark == display.requestMark, !display.isBroken {
            return (descriptor, Int16(POLLIN))
        }
        // Round trips (and flushing, which reads while it writes) pull events into Xlib's and
        // xcb's queues without the socket showing them to poll(). So the socket is read (which
        // also sends what is buffered) whenever poll() said it is readable or a request was made
        // since the last read that emptied it; otherwise nothing can be waiting that poll() would
        // not see, and the turn costs no read. Events are taken from Xlib's queue without reading
        // in between: one read per wake-up.
        var batch = 0
        while true {
            var queued = display.queuedEvents()
            while queued > 0 {
                queued -= 1
                var event = display.nextEvent()
                tracker.handle(&event)
                if display.isBroken { return fail() }
                // Under a flood the queue may never run dry: report what is known now and then.
                batch += 1
                if batch == 256 {
                    tracker.flushObservations()
                    if isClosed { return (-1, 0) }
                    batch = 0
                }
                // Handling may have made round trips, which queue more.
                if queued == 0 { queued = display.queuedEvents() }
            }
            if mayHaveInput || display.requestMark != drainedMark {
                _ = display.pendingEvents()
                if display.isBroken { return fail() }
                mayHaveInput = false
                drainedMark = display.requestMark
                if display.queuedEvents() > 0 { continue }
            }
            // Judging ownership at a show may make round trips: the queue is looked at once more.
            if tracker.hasObservationsToFlush {
                tracker.flushObservations()
                if isClosed { return (-1, 0) }
                continue
            }
            if display.isBroken { return fail() }
            return (descriptor, Int16(POLLIN))
        }
    }

    func handle(events: Int16) {
        guard !isClosed else { return }
        if events & Int16(POLLHUP | POLLERR | POLLNVAL) != 0, events & Int16(POLLIN) == 0 {
            _ = fail()
        }
        // Readable: the next prepareToWait reads and handles what came.
        if events != 0 { mayHaveInput = true }
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        context.remove(self)
        display.close()
    }

    private func fail(reason: String? = nil) -> (descriptor: Int32, events: Int16) {
        tracker.hideAll()
        let reason = reason ?? "lost the connection to the X server \(display.name)"
        close()
        sink.finish(failure: BackendFailure(backend: backendName, reason: reason))
        return (-1, 0)
    }
}

/// The app whose focused windows make a keyboard local, as the run's owner last said: the
/// connection writes it and its tracker reads it at each show, both on the loop's thread.
final class AppIdentityCell {
    var value: AppIdentity

    init(_ value: AppIdentity) { self.value = value }
}
