@_spi(BackendRun) import KeyboardBackendInterface
import Synchronization

/// The `gnome` backend: GNOME Shell's own on-screen keyboard, on GNOME Wayland and GNOME Xorg
/// sessions, through the package's GNOME Shell extension (Companions/gnome-shell), which a
/// keyboard service speaks to on the session bus. GNOME Shell draws its keyboard itself: no window,
/// no layer surface, no struts, nothing on the bus; only code inside the shell sees it.
///
/// What it can tell, with the extension:
/// - Every show and hide and every step of the slide between, at the keyboard actor's own
///   rectangle (geometry `.reported`), docked at the bottom of its monitor, which it names
///   (`monitor 0`) with its frame; from the second slide on, `will` events predict the slide's
///   duration and curve from the last one measured.
/// - `isLocal` from the window that had the focus when the keyboard began to show: its pid and the
///   names the shell gives its app (desktop file id, GTK application id, WM_CLASS) against
///   `KeyboardManager.setAppIdentity(_:)`.
/// - Show and hide the shell's way (its keyboard's open and close, after its 300 ms rest).
/// - Where the shell shows the focused window (the focus's `frame`): the shell slides the window
///   up by its keyboard's height when the keyboard would cover the window's text cursor, and tells
///   the app nothing; an app measures what the keyboard covers of its window there
///   (`KeyboardManager.focusedWindowFrame`), or asks, through the extension, that the windows of
///   some processes be left in place (`KeyboardManager.leaveWindowsInPlace(processIDs:)`).
///
/// Without the extension (not installed, disabled, another release) the backend is unavailable,
/// with the reason and `kbwatch --install-gnome-extension`. While watching, the extension being
/// disabled or the shell going away hides the keyboard, and the watch goes on until they return;
/// only the bus going away ends it.
public final class GnomeBackend: KeyboardBackend {
    /// `gnome`.
    public let name = "gnome"
    /// Frames, docking, outputs and ownership; show and hide.
    public let capabilities: BackendCapabilities = [
        .reportsFrames, .reportsDocking, .reportsOwnership, .reportsOutputs, .hidesKeyboards, .showsKeyboards,
    ]
    /// The extension's service, started by each run and stopped by its owner after the run.
    public var services: [any KeyboardService] { [service] }
    private let service: any KeyboardService

    /// A registration for a backend joined with `service` (the `KeyboardAdapter` umbrella passes
    /// the extension's service, `GnomeShellKeyboardService`). It fits any session type and ranks first:
    /// whether the session is GNOME's is what the bus says (`org.gnome.Shell` has an owner), and
    /// on GNOME the x11 and wayland backends would start and see nothing of the shell's keyboard.
    public static func registration(service: @escaping @Sendable () -> any KeyboardService)
        -> BackendRegistry.Registration
    {
        BackendRegistry.Registration(
            name: "gnome",
            hint: BackendSessionHint(variables: ["DBUS_SESSION_BUS_ADDRESS"], sessionType: nil, priority: 3),
            make: { GnomeBackend(service: service()) })
    }

    /// Creates a backend that hears GNOME Shell's keyboard through `service`.
    public init(service: any KeyboardService) {
        self.service = service
    }

    /// Available when GNOME Shell runs on the session bus with this release's extension
    /// answering; unreachable outside GNOME (no session bus, or nobody owns `org.gnome.Shell`);
    /// unavailable in GNOME without the extension, with what fixes it.
    public func availability() -> BackendAvailability {
        let state = service.probe()
        switch state.status {
        case .busUnavailable(let reason): return .unreachable(reason: reason)
        case .notRunning, .unknown:
            return .unreachable(reason: state.companionStatus ?? "GNOME Shell is not running on the session bus")
        case .running:
            guard state.companion != nil else {
                return .unavailable(reason: state.companionStatus ?? "the KeyboardAdapter extension does not answer")
            }
            return .available(detail: state.companionStatus ?? service.address)
        }
    }

    /// Starts the service on the loop and delivers the keyboard at once when it is up; `app`'s
    /// focused window makes a keyboard local.
    @_spi(BackendRun) public func open(in context: LoopContext, sink: any ObservationSink, app: AppIdentity) throws
        -> any BackendConnection
    {
        let identity = KeyboardIdentity(id: "gnome:keyboard", name: service.keyboardName)
        let connection = ShellKeyboardConnection(identity: identity, sink: sink, backendName: name, app: app)
        let service = service
        service.start(in: context) { [weak connection] state in connection?.serviceChanged(state) }
        if case .busUnavailable(let reason) = service.state.status {
            service.stop()
            throw BackendFailure(backend: name, kind: .connectionLost, reason: reason)
        }
        connection.serviceChanged(service.state)
        return connection
    }

    /// Only GNOME Shell can show or hide its keyboard, through the extension.
    public func requestLimitation(_ what: String) -> String {
        "only GNOME Shell can \(what) its keyboard, through the KeyboardAdapter extension"
    }

    /// What the shell and the extension say, and how show and hide are made.
    public func diagnose() -> [String] {
        let state = service.probe()
        var lines = ["keyboard service \(service.name) (\(service.address)): \(state)"]
        if let status = state.companionStatus { lines.append(status) }
        lines.append("show and hide: the shell's own open and close, through the extension")
        lines.append(
            "where: the keyboard actor's rectangle at every step of its slide, from inside the shell (geometry reported)"
        )
        return lines
    }
}

/// The backend's state on the loop: the reports. Used on the loop's thread only.
final class ShellKeyboardConnection: BackendConnection {
    // Not Sendable: created by `open` on the loop's thread and used there only by the run's owner.
    private var reports: ShellKeyboardReports
    private let sink: any ObservationSink
    private let backendName: String
    private var app: AppIdentity
    private var isClosed = false

    init(identity: KeyboardIdentity, sink: any ObservationSink, backendName: String, app: AppIdentity) {
        reports = ShellKeyboardReports(identity: identity)
        self.sink = sink
        self.backendName = backendName
        self.app = app
    }

    /// What the extension says changed; the bus going away ends the watch.
    func serviceChanged(_ state: KeyboardServiceState) {
        guard !isClosed else { return }
        reports.serviceChanged(state, time: MonotonicClock.now(), app: { app }).forEach(sink.deliver)
        if case .busUnavailable(let reason) = state.status {
            close()
            sink.finish(failure: BackendFailure(backend: backendName, kind: .connectionLost, reason: reason))
        }
    }

    func appIdentityChanged(_ identity: AppIdentity) { app = identity }

    func close() { isClosed = true }
}
