import CWayland
import CWaylandProtocols
import Glibc
import KeyboardBackendInterface
import WaylandClient

/// Everything the backend holds on one connection: globals, outputs with their probes, the seat
/// layout, the toplevels with their focus (and sway's IPC for pids), and the docked keyboards
/// reported so far. Lives on the loop thread after `start`.
final class WaylandSession: ShortSession {
    let connection: WaylandDisplay
    private let registry: Registry
    private var compositor: OpaquePointer?
    private var layerShell: OpaquePointer?
    private var wmBase: OpaquePointer?
    private let shared: SharedGlobals
    private var outputs: [UInt32: WatchedOutputState] = [:]
    private var reports = KeyboardReports()
    /// The compositor's toplevels, on a connection of their own, when it offers
    /// wlr-foreign-toplevel-management.
    var toplevels: ToplevelConnection?
    /// sway's IPC, for the focused view's pid, when it belongs to this compositor.
    var swayIPC: SwayIPC?
    /// The app `isLocal` is judged against, read at each show.
    var appIdentity: () -> AppIdentity = { AppIdentity() }
    private var verdicts = LocalVerdicts()
    /// Set once the globals present at start are bound: outputs announced later are plugged.
    private var isBound = false
    /// Where observations go; nil while only checking what the compositor offers.
    var deliver: ((KeyboardObservation) -> Void)?
    /// Called with every change of an output or its usable area (for diagnostics and tests).
    var onStatus: (([WaylandOutputStatus]) -> Void)?

    /// The protocol the backend cannot do without.
    static let layerShellInterface = "zwlr_layer_shell_v1"
    /// The protocol that says which toplevel has the focus.
    static let toplevelsInterface = "zwlr_foreign_toplevel_manager_v1"

    /// Connects and reads the globals (one roundtrip); binds nothing yet.
    init(display name: String?) throws(WaylandError) {
        connection = try WaylandDisplay(name: name)
        registry = Registry(display: connection.display)
        shared = SharedGlobals(registry: registry.proxy)
        try connection.roundtrip()
    }

    /// True when the compositor offers `interface`.
    func offers(_ interface: String) -> Bool { registry.offers(interface) }

    /// The KWin-only globals the compositor offers (empty: not KWin).
    var kwinGlobalsOffered: [String] { registry.kwinGlobalsOffered }

    /// Binds the globals, creates a probe per output, and waits for the first configures, so
    /// that panels already present form the baseline before any event is delivered.
    func bind() throws(WaylandError) {
        registry.onGlobal = { [unowned self] name, interface, version in bindGlobal(name, interface, version) }
        registry.onRemove = { [unowned self] name in removeGlobal(name) }
        shared.onLayout = { [unowned self] in layoutChanged() }
        for (name, global) in registry.globals.sorted(by: { $0.key < $1.key }) {
            bindGlobal(name, global.interface, global.version)
        }
        // Output details, then probe configures, then origin queries: each needs a round trip.
        for _ in 0..<3 { try connection.roundtrip() }
        isBound = true
    }

    private func bindGlobal(_ name: UInt32, _ interface: String, _ version: UInt32) {
        let r = registry.proxy
        if !shared.bind(name, interface, version) {
            switch interface {
            // One of each global is bound; a second announcement of the same interface is ignored
            // (binding it again would leak the first proxy).
            case "wl_compositor" where compositor == nil:
                compositor = OpaquePointer(wl_registry_bind(r, name, ka_wl_compositor_interface(), min(version, 4)))
            case Self.layerShellInterface where layerShell == nil:
                layerShell = OpaquePointer(
                    wl_registry_bind(r, name, ka_zwlr_layer_shell_v1_interface(), min(version, 4)))
            case "xdg_wm_base" where wmBase == nil:
                let base = OpaquePointer(wl_registry_bind(r, name, ka_xdg_wm_base_interface(), min(version, 2)))!
                wmBase = base
                ka_wm_base_add_listener(base, wmBaseListener, nil)
            case "wl_output":
                let watched = WatchedOutput(registry: r, globalName: name, version: version)
                let state = WatchedOutputState(watched: watched)
                outputs[name] = state
                if isBound { reports.outputPlugged(name) }
                watched.onDone = { [unowned self, unowned state] in outputChanged(state) }
            default:
                return
            }
        }
        // Late globals complete what earlier ones started.
        for state in outputs.values { shared.attach(state.watched) }
        for state in outputs.values where state.probe == nil { startProbe(state) }
    }

    private func startProbe(_ state: WatchedOutputState) {
        guard let compositor, let layerShell, !state.probeClosed else { return }
        let probe = UsableAreaProbe(
            globals: ProbeGlobals(compositor: compositor, layerShell: layerShell, wmBase: wmBase),
            output: state.watched.proxy)
        probe.onUsableArea = { [unowned self, unowned state] area in usableAreaChanged(state, area) }
        probe.onClosed = { [unowned self, unowned state] in probeClosed(state) }
        probe.outputSize = state.watched.output.map { ($0.frame.width, $0.frame.height) }
        state.probe = probe
    }

    private func removeGlobal(_ name: UInt32) {
        if let state = outputs.removeValue(forKey: name) {
            send(reports.outputRemoved(name, time: MonotonicClock.now()))
            state.destroy()
            publishStatus()
        } else {
            _ = shared.remove(name)
        }
    }

    private func probeClosed(_ state: WatchedOutputState) {
        send(reports.probeClosed(state.watched.globalName, time: MonotonicClock.now()))
        state.probe?.destroy()
        state.probe = nil
        // The compositor closes the probe when its output is disabled or goes away; it is
        // reopened when the output announces itself again, not at once (no close/open loop).
        state.probeClosed = true
        publishStatus()
    }

    private func outputChanged(_ state: WatchedOutputState) {
        if state.probeClosed {
            state.probeClosed = false
            startProbe(state)
        }
        guard let output = state.watched.output else { return }
        state.probe?.outputSize = (output.frame.width, output.frame.height)
        send(reports.outputChanged(state.watched.globalName, to: output, time: MonotonicClock.now()))
        publishStatus()
    }

    private func usableAreaChanged(_ state: WatchedOutputState, _ area: Rect) {
        send(reports.usableAreaChanged(state.watched.globalName, to: area, time: MonotonicClock.now()))
        publishStatus()
    }

    /// What the running keyboard services say changed: it names the strips shown from now on.
    func servicesChanged(_ claims: [ServiceClaim]) {
        send(reports.servicesChanged(to: claims, time: MonotonicClock.now()))
    }

    /// Delivers the keyboards the services say are up now, which the baseline took in (called
    /// once, after `bind` and once `deliver` is set).
    func adoptVisibleKeyboards() {
        send(reports.adoptVisibleKeyboards(time: MonotonicClock.now()))
    }

    /// Hides every keyboard reported so far (the connection broke).
    func hideAll() {
        send(reports.hideAll(time: MonotonicClock.now()))
    }

    private func layoutChanged() {
        send(reports.layoutChanged(to: shared.layout, time: MonotonicClock.now()))
    }

    private func send(_ observations: [KeyboardObservation]) {
        guard let deliver else { return }
        for observation in observations {
            deliver(verdicts.stamp(observation, app: appIdentity, focus: { focusNow }))
        }
    }

    /// What has the focus now (see ``ShowOwnership``).
    private var focusNow: FocusedTopLevel? {
        let ipc = swayIPC.flatMap { $0.isOpen ? $0 : nil }
        return ShowOwnership.focus(
            activation: offers(Self.toplevelsInterface) ? toplevels?.activation ?? .unknown : nil, swayIPC: ipc != nil,
            swayFocus: ipc?.state.focus)
    }

    /// The compositor's process (the peer of the connection), to tell whose sway IPC socket is whose.
    var compositorPID: pid_t? { SwayIPC.peerPID(connection.fileDescriptor) }

    /// The outputs and their usable areas in global coordinates, ordered by name.
    var status: [WaylandOutputStatus] {
        outputs.values.compactMap { state in
            guard let output = state.watched.output else { return nil }
            return WaylandOutputStatus(output: output, usableArea: reports.usableArea(of: state.watched.globalName))
        }.sorted { $0.output.name < $1.output.name }
    }

    private func publishStatus() { onStatus?(status) }

    /// The active layout of the seat keyboard, if any.
    var layout: InputLayout? { shared.layout }

    /// Releases every proxy, then the connection (when the session itself goes).
    func destroy() {
        deliver = nil
        onStatus = nil
        for state in outputs.values { state.destroy() }
        outputs = [:]
        shared.destroy()
        toplevels?.close()
        toplevels = nil
        swayIPC?.close()
        swayIPC = nil
        if let wmBase { ka_wm_base_destroy(wmBase) }
        wmBase = nil
        if let layerShell { ka_layer_shell_destroy(layerShell) }
        layerShell = nil
        if let compositor { wl_compositor_destroy(compositor) }
        compositor = nil
        registry.destroy()
        wl_display_flush(connection.display)
    }
}

/// One output and its probe.
final class WatchedOutputState {
    let watched: WatchedOutput
    var probe: UsableAreaProbe?
    var probeClosed = false

    init(watched: WatchedOutput) { self.watched = watched }

    func destroy() {
        probe?.destroy()
        probe = nil
        watched.destroy()
    }
}

/// The compositor pings clients that use xdg-shell; an unanswered ping may get us disconnected.
nonisolated(unsafe) private let wmBaseListener = permanent(
    ka_wm_base_listener(
        ping: { _, base, serial in ka_wm_base_pong(base, serial) }))
