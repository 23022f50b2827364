import Glibc
@_spi(BackendRun) import KeyboardBackendInterface
import Synchronization
import WaylandClient

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The `kwin` backend: KWin's virtual keyboard (maliit-keyboard, or whichever input method KWin
/// runs) on KDE Plasma and Plasma Mobile, through KWin's own D-Bus interface
/// (`org.kde.KWin` `/VirtualKeyboard`), joined with the outputs and layout seen on Wayland.
///
/// What it can tell, and what it cannot:
/// - Whether the keyboard is up, event-driven (KWin's `visibleChanged` signal), including a
///   keyboard already up when watching starts.
/// - Where, on KWin 6: the package's KWin script (Companions/kwin), which the service loads while
///   it watches, reports the input method's window: its frame, its output, geometry `.derived`;
///   then that window's presence is what says the keyboard is up. KWin places the panel itself and
///   reserves no space, and nothing else open to other clients says where it is.
/// - Not where on KWin 5: its scripts see the panel only as the whole output. Updates there have
///   geometry `.unknown` and no frames: treat them as "visible, size unknown".
/// - `isLocal` on KWin 6 from the window that has the focus when the keyboard shows (its pid, its
///   resource class or desktop file against `KeyboardManager.setAppIdentity(_:)`); on KWin 5 from what the app
///   says about its text input. The output the script names, else the only one; the seat's layout.
/// - Show and hide through KWin: `forceActivate` (what Plasma's keyboard button does) and setting
///   `active` to false. The script is unloaded when watching stops; one left by a watcher that was
///   killed is unloaded by the next watcher's start.
public final class KWinBackend: KeyboardBackend {
    /// `kwin`.
    public let name = "kwin"
    /// Outputs and layout, show and hide; frames, docking and ownership too while the KWin script
    /// reports (KWin 6, once watching has started).
    public var capabilities: BackendCapabilities {
        let base: BackendCapabilities = [.reportsOutputs, .reportsLayout, .hidesKeyboards, .showsKeyboards]
        return service.state.companion == nil ? base : base.union([.reportsFrames, .reportsDocking, .reportsOwnership])
    }
    /// The socket given at creation, or nil for `WAYLAND_DISPLAY`.
    public let displayName: String?
    /// KWin's virtual-keyboard service, started by each run and stopped by its owner after the run.
    public var services: [any KeyboardService] { [service] }
    private let service: any KeyboardService

    /// A registration for a backend joined with `service` (the `KeyboardAdapter` umbrella passes
    /// KWin's D-Bus service). It ranks above the wlroots `wayland` backend, which KWin's layer
    /// shell would otherwise let start and see nothing.
    public static func registration(service: @escaping @Sendable () -> any KeyboardService)
        -> BackendRegistry.Registration
    {
        BackendRegistry.Registration(
            name: "kwin",
            hint: BackendSessionHint(variables: ["WAYLAND_DISPLAY"], sessionType: "wayland", priority: 2),
            make: { KWinBackend(service: service()) })
    }

    /// Creates a backend for the KWin at `display` (a socket name or an absolute path), or at
    /// `WAYLAND_DISPLAY` when nil, that hears KWin's virtual keyboard through `service`.
    public init(display: String? = nil, service: any KeyboardService) {
        displayName = display
        self.service = service
    }

    /// Available when the compositor is KWin (it offers globals only KWin has) and KWin's
    /// virtual-keyboard service answers on the session bus.
    public func availability() -> BackendAvailability {
        if let missing = BackendAvailability.missingWaylandDisplay(
            displayName: displayName, environment: ProcessEnvironment.current)
        {
            return missing
        }
        return KWinSession.withSession(
            display: displayName, failed: { .unreachable(reason: $0.description) },
            body: { session in
                guard !session.kwinGlobalsOffered.isEmpty else {
                    return .unavailable(
                        reason: "the compositor at \(session.connection.socketName) is not KWin (it offers none of "
                            + Registry.kwinGlobals.joined(separator: ", ") + ")")
                }
                let state = service.probe()
                guard state.isRunning else {
                    return .unavailable(reason: "KWin's virtual keyboard cannot be heard: \(service.address): \(state)")
                }
                return .available(
                    detail: "KWin's virtual keyboard on \(service.address), outputs on \(session.connection.socketName)"
                )
            })
    }

    /// Connects to KWin's Wayland display for the outputs and the layout, starts the service on
    /// the loop, and delivers the keyboard at once when it is up; `app`'s focused window makes a
    /// keyboard local (KWin 6).
    @_spi(BackendRun) public func open(in context: LoopContext, sink: any ObservationSink, app: AppIdentity) throws
        -> any BackendConnection
    {
        let session: KWinSession
        do throws(WaylandError) {
            session = try KWinSession(display: displayName)
            try session.bind()
        } catch {
            throw BackendFailure(backend: name, kind: .connectionLost, reason: error.description)
        }
        let identity = KeyboardIdentity(id: "kwin:virtual-keyboard", name: service.keyboardName)
        let connection = KWinConnection(
            session: session, identity: identity, sink: sink, context: context, backendName: name, app: app)
        let service = service
        service.start(in: context) { [weak connection] state in connection?.serviceChanged(state) }
        connection.serviceChanged(service.state)
        return connection
    }

    /// Only KWin can show or hide its virtual keyboard, through its service (`forceActivate`,
    /// `active` set to false).
    public func requestLimitation(_ what: String) -> String {
        "only KWin can \(what) its virtual keyboard, through its VirtualKeyboard service"
    }

    /// The compositor, the outputs, the layout, what KWin's service says, and what cannot be seen.
    public func diagnose() -> [String] {
        KWinSession.withSession(
            display: displayName, failed: { [$0.description] },
            body: { session in
                var lines = [
                    "compositor at \(session.connection.socketName): "
                        + (session.kwinGlobalsOffered.isEmpty
                            ? "not KWin" : "KWin (offers \(session.kwinGlobalsOffered.joined(separator: ", ")))")
                ]
                if (try? session.bind()) != nil {
                    lines += session.currentOutputs.values.sorted { $0.name < $1.name }.map { "output \($0)" }
                    lines.append("seat keyboard layout: " + (session.layout?.description ?? "none (no seat keyboard)"))
                }
                lines.append("event thread: " + DisplaySource.threadDescription)
                lines.append("keyboard service \(service.name) (\(service.address)): \(service.probe())")
                lines += service.diagnosis()
                lines.append("show: forceActivate; hide: active set to false (through KWin)")
                lines.append(
                    "where: on KWin 6 the package's KWin script reports the keyboard's window while watching (geometry "
                        + "derived); on KWin 5 nothing open to other clients says (geometry unknown)")
                if let companion = service.state.companionStatus { lines.append("KWin script: \(companion)") }
                return lines
            })
    }
}

/// The backend's state on the loop: KWin's Wayland display as a loop source, and the reports.
/// Used on the loop's thread only.
final class KWinConnection: BackendConnection {
    // Not Sendable: created by `open` on the loop's thread and used there only by the run's owner.
    private var session: KWinSession?
    private var source: DisplaySource?
    private var reports: VirtualKeyboardReports
    private let sink: any ObservationSink
    private var app: AppIdentity

    init(
        session: KWinSession, identity: KeyboardIdentity, sink: any ObservationSink, context: LoopContext,
        backendName: String, app: AppIdentity
    ) {
        self.session = session
        self.sink = sink
        self.app = app
        reports = VirtualKeyboardReports(identity: identity)
        let now = MonotonicClock.now()
        for (key, output) in session.currentOutputs { _ = reports.outputChanged(key, to: output, time: now) }
        _ = reports.layoutChanged(to: session.layout, time: now)
        session.onOutput = { [unowned self] key, output in
            send(reports.outputChanged(key, to: output, time: MonotonicClock.now()))
        }
        session.onLayout = { [unowned self] layout in
            send(reports.layoutChanged(to: layout, time: MonotonicClock.now()))
        }
        source = DisplaySource(display: session.connection, context: context) { [unowned self] reason in
            // KWin went away: the keyboard with it.
            send(reports.visibilityChanged(to: false, time: MonotonicClock.now()))
            close()
            sink.finish(failure: BackendFailure(backend: backendName, kind: .connectionLost, reason: reason))
        }
    }

    /// What KWin's service says changed: up only while it runs and says visible, or, while the
    /// KWin script reports, while the keyboard's window exists.
    func serviceChanged(_ state: KeyboardServiceState) {
        guard session != nil else { return }
        send(
            reports.serviceChanged(
                visible: state.isRunning && state.isVisible == true, companion: state.isRunning ? state.companion : nil,
                time: MonotonicClock.now(), app: { app }))
    }

    private func send(_ observations: [KeyboardObservation]) {
        observations.forEach(sink.deliver)
    }

    func appIdentityChanged(_ identity: AppIdentity) { app = identity }

    func close() {
        source?.close()
        source = nil
        session?.destroy()
        session = nil
    }
}
