import Glibc
@_spi(BackendRun) import KeyboardBackendInterface
import Synchronization
import WaylandClient

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One output as the Wayland backend sees it.
public struct WaylandOutputStatus: Sendable, Hashable, CustomStringConvertible {
    /// The output's name and global logical frame.
    public var output: Output
    /// Its usable area (the output minus every exclusive zone) in global logical pixels, once
    /// the probe has measured it.
    public var usableArea: Rect?

    /// Creates a status value.
    public init(output: Output, usableArea: Rect?) {
        self.output = output
        self.usableArea = usableArea
    }

    /// How much the usable area leaves at each edge of the output, once measured.
    var insets: EdgeInsets? {
        usableArea.map { usable in
            let frame = output.frame
            return InsetClassifier.insets(
                usable: usable.offsetBy(dx: -frame.x, dy: -frame.y), outputWidth: frame.width,
                outputHeight: frame.height)
        }
    }

    /// The output and its usable area.
    public var description: String { "\(output) usable \(usableArea.map(\.description) ?? "unknown")" }
}

/// The `wayland` backend: sees docked on-screen keyboards on compositors with wlr-layer-shell
/// (sway, phoc, Hyprland, river, cage, labwc) by watching each output's usable area shrink.
///
/// What it can tell, and what it cannot:
/// - Only docked keyboards (exclusive zone > 0) are seen; their frame is the reserved strip at
///   the output's edge (exclusive zone plus margin), reported as `.derived` geometry.
/// - Panels (swaybar) are told apart by a per-edge baseline: the smallest inset seen. A
///   keyboard already visible when watching starts counts as baseline until it first hides,
///   unless its service says it is up (below).
/// - Keyboard ids are `wayland:` + output name + edge; the name is "docked keyboard" unless a
///   keyboard service claims the strip.
/// - With keyboard services (squeekboard's `sm.puri.OSK0`): a strip at the edge the only running
///   service's keyboard docks at is named after it, with its pid; a keyboard its service says is
///   up at start is reported (the whole inset at its edge, `.derivedUpperBound`, since a panel
///   there cannot be told apart until it hides once; exact from its first hide on); show and hide
///   go through the service.
/// - `isLocal` is judged at each show against the app's identity (`KeyboardManager.setAppIdentity(_:)`), as on
///   X11, where the compositor offers wlr-foreign-toplevel-management (sway, phoc, labwc,
///   wayfire): the activated toplevel's app id is compared with the app's ids, and, where sway's
///   IPC (`SWAYSOCK`) belongs to this compositor, the focused view's pid with the app's pids.
///   Where none of that can be compared it is nil, and the manager fills it from what the app
///   says about its text input (`textInputActive`). A show never waits for either.
/// - The layout is the seat keyboard's (where one exists), else nil.
/// - Compositors without `zwlr_layer_shell_v1` (Weston, GNOME) are reported unavailable.
public final class WaylandBackend: KeyboardBackend {
    /// `wayland`.
    public let name = "wayland"
    /// Docking, outputs and layout; no own frames (only the reserved space), no floating keyboards.
    /// With keyboard services, it can also show and hide keyboards (while a service runs).
    /// Ownership too once the compositor was seen to offer foreign toplevels.
    public var capabilities: BackendCapabilities {
        var capabilities: BackendCapabilities = [.reportsDocking, .reportsOutputs, .reportsLayout]
        if !services.isEmpty { capabilities.formUnion([.hidesKeyboards, .showsKeyboards]) }
        if offersToplevels.load(ordering: .relaxed) { capabilities.insert(.reportsOwnership) }
        return capabilities
    }
    /// The keyboards' own services (squeekboard's), started by each run and stopped by its owner
    /// after the run: they name the strips, tell a keyboard up at start from a panel, and take
    /// show and hide requests.
    public let services: [any KeyboardService]
    /// The socket given at creation (a name in `XDG_RUNTIME_DIR` or an absolute path), or nil
    /// for `WAYLAND_DISPLAY`.
    public let displayName: String?

    private let latestStatus = Mutex<[WaylandOutputStatus]>([])
    /// Whether the compositor last connected to offered wlr-foreign-toplevel-management.
    private let offersToplevels = Atomic<Bool>(false)
    /// Where `SWAYSOCK` is read.
    let environment: [String: String]

    /// The registration that the `KeyboardAdapter` umbrella adds to the registry.
    public static let registration = BackendRegistry.Registration(
        name: "wayland", hint: BackendSessionHint(variables: ["WAYLAND_DISPLAY"], sessionType: "wayland", priority: 1),
        make: { WaylandBackend() })

    /// Creates a backend for the compositor at `display` (a socket name or an absolute path), or
    /// at `WAYLAND_DISPLAY` when nil, joined with `services`; sway's IPC socket is `environment`'s
    /// `SWAYSOCK`. Nothing connects until `availability()` or `open(in:sink:app:)`.
    public init(
        display: String? = nil, services: [any KeyboardService] = [],
        environment: [String: String] = ProcessEnvironment.current
    ) {
        displayName = display
        self.services = services
        self.environment = environment
    }

    /// Connects briefly and checks that the compositor offers what the probe needs.
    public func availability() -> BackendAvailability {
        if let missing = BackendAvailability.missingWaylandDisplay(
            displayName: displayName, environment: ProcessEnvironment.current)
        {
            return missing
        }
        do {
            let session = try WaylandSession(display: displayName)
            defer { session.destroy() }
            offersToplevels.store(session.offers(WaylandSession.toplevelsInterface), ordering: .relaxed)
            if let missing = Self.missingInterface(session) {
                return .unavailable(reason: Self.unsupportedReason(missing: missing, session: session))
            }
            if !session.kwinGlobalsOffered.isEmpty {
                return .unavailable(reason: Self.kwinReason(session))
            }
            return .available(detail: "layer-shell probe on the compositor at \(session.connection.socketName)")
        } catch {
            return .unreachable(reason: error.description)
        }
    }

    private static func missingInterface(_ session: WaylandSession) -> String? {
        [WaylandSession.layerShellInterface, "wl_compositor"].first { !session.offers($0) }
    }

    /// KWin offers layer shell, but its virtual keyboard reserves no space: the usable area would
    /// never change, and watching it would say "no keyboard" while one is up.
    static func kwinReason(_ session: WaylandSession) -> String {
        "the compositor at \(session.connection.socketName) is KWin, whose virtual keyboard reserves no space: "
            + "the kwin backend watches it"
    }

    private static func unsupportedReason(missing: String, session: WaylandSession) -> String {
        var reason =
            "compositor at \(session.connection.socketName) lacks \(missing); "
            + "on-screen keyboard geometry is not observable"
        if session.offers("zwp_input_panel_v1") {
            reason += " (its zwp_input_panel_v1 is private to the compositor's own input method)"
        }
        return reason
    }

    /// Connects, sets up one probe per output, and adds the connection to the loop (and sway's IPC
    /// too, when it belongs to this compositor and it offers foreign toplevels). Keyboards
    /// already docked now count as baseline (see the type's notes), except one whose service says
    /// it is up, which is delivered at once. `app`'s focused toplevel makes a keyboard local.
    @_spi(BackendRun) public func open(in context: LoopContext, sink: any ObservationSink, app: AppIdentity) throws
        -> any BackendConnection
    {
        let session: WaylandSession
        do throws(WaylandError) {
            session = try WaylandSession(display: displayName)
        } catch {
            throw BackendFailure(backend: name, kind: .connectionLost, reason: error.description)
        }
        if let missing = Self.missingInterface(session) {
            let reason = Self.unsupportedReason(missing: missing, session: session)
            session.destroy()
            throw BackendFailure(backend: name, kind: .other, reason: reason)
        }
        if !session.kwinGlobalsOffered.isEmpty {
            let reason = Self.kwinReason(session)
            session.destroy()
            throw BackendFailure(backend: name, kind: .other, reason: reason)
        }
        session.onStatus = { [weak self] status in self?.latestStatus.withLock { $0 = status } }
        do throws(WaylandError) {
            try session.bind()
        } catch {
            session.destroy()
            throw BackendFailure(backend: name, kind: .connectionLost, reason: error.description)
        }
        latestStatus.withLock { $0 = session.status }
        let hasToplevels = session.offers(WaylandSession.toplevelsInterface)
        offersToplevels.store(hasToplevels, ordering: .relaxed)
        session.appIdentity = { app }
        if hasToplevels {
            session.toplevels = ToplevelConnection(displayName: displayName, context: context)
            session.swayIPC = try? SwayIPC.open(
                environment: environment, compositorPID: session.compositorPID, context: context
            ).get()
        }
        session.deliver = { sink.deliver($0) }
        // The services are asked before the strips present now are judged; their changes come
        // on this loop's thread, where the session lives.
        let services = services
        for service in services {
            service.start(in: context) { [weak session] _ in
                session?.servicesChanged(ServiceClaim.running(services))
            }
        }
        session.servicesChanged(ServiceClaim.running(services))
        session.adoptVisibleKeyboards()
        return WaylandConnection(session: session, sink: sink, context: context, backendName: name)
    }

    /// The outputs and their usable areas as last measured (empty before the first run opens).
    public var outputs: [WaylandOutputStatus] { latestStatus.withLock { $0 } }

    /// The space each output's usable area leaves at its edges, as last measured.
    public var reservedStrips: [ReservedStrip] {
        outputs.flatMap { status -> [ReservedStrip] in
            guard let insets = status.insets else { return [] }
            return [Edge.bottom, .top, .left, .right].compactMap { edge in
                guard insets[edge] > 0 else { return nil }
                return ReservedStrip(
                    output: status.output, edge: edge,
                    frame: InsetClassifier.frame(growth: insets[edge], at: edge, of: status.output.frame))
            }
        }
    }

    /// The compositor, the protocols the probe uses, each output with its usable area (measured
    /// by a short-lived probe of its own), the seat's layout, and what cannot be seen.
    public func diagnose() -> [String] {
        WaylandSession.withSession(
            display: displayName, failed: { [$0.description] },
            body: { session in
                var lines = ["compositor at \(session.connection.socketName)"]
                let wanted = [
                    WaylandSession.layerShellInterface, "wl_compositor", "xdg_wm_base", "zxdg_output_manager_v1",
                    "wl_seat", WaylandSession.toplevelsInterface,
                ]
                lines.append(
                    "protocols: "
                        + wanted.map { "\($0) " + (session.offers($0) ? "found" : "missing") }
                        .joined(separator: ", "))
                guard Self.missingInterface(session) == nil, (try? session.bind()) != nil else {
                    return lines + ["on-screen keyboard geometry is not observable here"]
                }
                lines += session.status.map { "output \($0)" }
                lines.append("seat keyboard layout: " + (session.layout?.description ?? "none (no seat keyboard)"))
                lines += ownershipDiagnosis(session)
                lines.append("event thread: " + DisplaySource.threadDescription)
                var insets: [Edge: Int] = [:]
                for measured in session.status.compactMap(\.insets) {
                    for edge in Edge.allCases { insets[edge] = max(insets[edge] ?? 0, measured[edge]) }
                }
                lines += serviceDiagnosis(insets: insets)
                lines.append(
                    "sees docked keyboards only (exclusive zone > 0): the frame is the reserved strip; floating keyboards are "
                        + "not seen, nor one already docked at start (until it first hides) unless its service says it is up"
                )
                return lines
            })
    }
}

/// The backend's session on the loop: the compositor connection as a run-loop source, and what
/// to do when it breaks. Used on the loop's thread only.
final class WaylandConnection: BackendConnection {
    // Not Sendable: created by `open` on the loop's thread and used there only by the run's owner.
    private var session: WaylandSession?
    private var source: DisplaySource?

    init(session: WaylandSession, sink: any ObservationSink, context: LoopContext, backendName: String) {
        self.session = session
        source = DisplaySource(display: session.connection, context: context) { [unowned self] reason in
            self.session?.hideAll()
            self.session?.deliver = nil
            self.close()
            sink.finish(failure: BackendFailure(backend: backendName, kind: .connectionLost, reason: reason))
        }
    }

    func appIdentityChanged(_ identity: AppIdentity) { session?.appIdentity = { identity } }

    func close() {
        source?.close()
        source = nil
        session?.destroy()
        session = nil
    }
}
