import CWayland
import CWaylandProtocols
import KeyboardAdapterCore

/// Everything the backend holds on one connection: globals, outputs with their probes, the seat
/// layout, and the docked keyboards reported so far. Lives on the loop thread after `start`.
final class WaylandSession {
    let connection: WaylandDisplay
    private let registry: Registry
    private var compositor: OpaquePointer?
    private var layerShell: OpaquePointer?
    private var wmBase: OpaquePointer?
    private var outputManager: OpaquePointer?
    private var seat: SeatLayout?
    private var seatGlobal: UInt32?
    private var outputs: [UInt32: WatchedOutputState] = [:]
    /// Where observations go; nil while only checking what the compositor offers.
    var deliver: ((Observation) -> Void)?
    /// Called with every change of an output or its usable area (for diagnostics and tests).
    var onStatus: (([WaylandOutputStatus]) -> Void)?

    /// The namespace-free protocol the backend cannot do without.
    static let layerShellInterface = "zwlr_layer_shell_v1"

    /// Connects and reads the globals (one roundtrip); binds nothing yet.
    init(display name: String?) throws(WaylandError) {
        connection = try WaylandDisplay(name: name)
        registry = Registry(display: connection.display)
        try connection.roundtrip()
    }

    /// True when the compositor offers `interface`.
    func offers(_ interface: String) -> Bool { registry.offers(interface) }

    /// Binds the globals, creates a probe per output, and waits for the first configures, so
    /// that panels already present form the baseline before any event is delivered.
    func bind() throws(WaylandError) {
        registry.onGlobal = { [unowned self] name, interface, version in bindGlobal(name, interface, version) }
        registry.onRemove = { [unowned self] name in removeGlobal(name) }
        for (name, global) in registry.globals.sorted(by: { $0.key < $1.key }) {
            bindGlobal(name, global.interface, global.version)
        }
        // Output details, then probe configures, then origin queries: each needs a round trip.
        for _ in 0..<3 { try connection.roundtrip() }
    }

    private func bindGlobal(_ name: UInt32, _ interface: String, _ version: UInt32) {
        let r = registry.proxy
        switch interface {
        case "wl_compositor":
            compositor = OpaquePointer(wl_registry_bind(r, name, ka_wl_compositor_interface(), min(version, 4)))
        case Self.layerShellInterface:
            layerShell = OpaquePointer(wl_registry_bind(r, name, ka_zwlr_layer_shell_v1_interface(), min(version, 4)))
        case "xdg_wm_base":
            let base = OpaquePointer(wl_registry_bind(r, name, ka_xdg_wm_base_interface(), min(version, 2)))!
            wmBase = base
            ka_wm_base_add_listener(base, wmBaseListener, nil)
        case "zxdg_output_manager_v1":
            outputManager = OpaquePointer(
                wl_registry_bind(r, name, ka_zxdg_output_manager_v1_interface(), min(version, 3)))
        case "wl_seat" where seat == nil:
            let layout = SeatLayout(registry: r, globalName: name, version: version)
            layout.onChange = { [unowned self] in layoutChanged() }
            seat = layout
            seatGlobal = name
        case "wl_output":
            let watched = WatchedOutput(registry: r, globalName: name, version: version)
            let state = WatchedOutputState(watched: watched)
            outputs[name] = state
            watched.onDone = { [unowned self, unowned state] in outputChanged(state) }
        default:
            return
        }
        // Late globals complete what earlier ones started.
        if let outputManager { for state in outputs.values { state.watched.attach(manager: outputManager) } }
        for state in outputs.values where state.probe == nil { startProbe(state) }
    }

    private func startProbe(_ state: WatchedOutputState) {
        guard let compositor, let layerShell, !state.probeClosed else { return }
        let probe = UsableAreaProbe(
            globals: ProbeGlobals(compositor: compositor, layerShell: layerShell, wmBase: wmBase),
            output: state.watched.proxy)
        probe.onUsableArea = { [unowned self, unowned state] area in usableAreaChanged(state, area) }
        probe.onClosed = { [unowned self, unowned state] in probeClosed(state) }
        state.probe = probe
    }

    private func removeGlobal(_ name: UInt32) {
        if let state = outputs.removeValue(forKey: name) {
            hide(state)
            state.destroy()
            publishStatus()
        } else if name == seatGlobal {
            seat?.destroy()
            seat = nil
            seatGlobal = nil
            layoutChanged()
        }
    }

    private func probeClosed(_ state: WatchedOutputState) {
        hide(state)
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
        if let area = state.probe?.usable { state.insets = insets(of: area, on: state) }
        report(state, learn: false)
        publishStatus()
    }

    private func usableAreaChanged(_ state: WatchedOutputState, _ area: Rect) {
        state.insets = insets(of: area, on: state)
        report(state, learn: true)
        publishStatus()
    }

    private func insets(of area: Rect, on state: WatchedOutputState) -> EdgeInsets? {
        guard let output = state.watched.output else { return nil }
        return InsetClassifier.insets(usable: area, outputWidth: output.frame.width, outputHeight: output.frame.height)
    }

    /// Works out the keyboards on one output and delivers what changed.
    private func report(_ state: WatchedOutputState, learn: Bool) {
        guard let output = state.watched.output, let insets = state.insets else { return }
        let keyboards: [DockedKeyboard]
        if learn || state.classifier.baseline == nil {
            keyboards = state.classifier.classify(insets, output: output.frame)
        } else {
            keyboards = InsetClassifier.keyboards(insets, baseline: state.classifier.baseline!, output: output.frame)
        }
        let now = MonotonicClock.now()
        let shown = Dictionary(uniqueKeysWithValues: keyboards.map { ($0.edge, $0.frame) })
        for (edge, _) in state.reported where shown[edge] == nil {
            send(edge: edge, frame: nil, output: state.reportedOutput ?? output, time: now)
            state.reported[edge] = nil
        }
        for keyboard in keyboards
        where state.reported[keyboard.edge] != keyboard.frame || state.reportedOutput != output {
            send(edge: keyboard.edge, frame: keyboard.frame, output: output, time: now)
            state.reported[keyboard.edge] = keyboard.frame
        }
        state.reportedOutput = output
    }

    /// Hides every keyboard reported on `state`'s output.
    private func hide(_ state: WatchedOutputState) {
        let now = MonotonicClock.now()
        for edge in state.reported.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            if let output = state.reportedOutput { send(edge: edge, frame: nil, output: output, time: now) }
        }
        state.reported = [:]
    }

    /// Hides every keyboard reported so far (the connection broke).
    func hideAll() {
        for name in outputs.keys.sorted() { hide(outputs[name]!) }
    }

    private func layoutChanged() {
        let now = MonotonicClock.now()
        for name in outputs.keys.sorted() {
            let state = outputs[name]!
            guard let output = state.reportedOutput else { continue }
            for (edge, frame) in state.reported.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                send(edge: edge, frame: frame, output: output, time: now)
            }
        }
    }

    private func send(edge: Edge, frame: Rect?, output: Output, time: Double) {
        let keyboard = KeyboardIdentity(id: "wayland:\(output.name):\(edge.rawValue)", name: "docked keyboard")
        deliver?(
            Observation(
                time: time, keyboard: keyboard, frame: frame, isDocked: true, dockedEdge: edge, output: output,
                geometry: .derived, layout: seat?.layout))
    }

    /// The outputs and their usable areas in global coordinates, ordered by name.
    var status: [WaylandOutputStatus] {
        outputs.values.compactMap { state in
            guard let output = state.watched.output else { return nil }
            let usable = state.probe?.usable.map { $0.offsetBy(dx: output.frame.x, dy: output.frame.y) }
            return WaylandOutputStatus(output: output, usableArea: usable)
        }.sorted { $0.output.name < $1.output.name }
    }

    private func publishStatus() { onStatus?(status) }

    /// The active layout of the seat keyboard, if any.
    var layout: InputLayout? { seat?.layout }

    /// Releases every proxy, then the connection (when the session itself goes).
    func destroy() {
        deliver = nil
        onStatus = nil
        for state in outputs.values { state.destroy() }
        outputs = [:]
        seat?.destroy()
        seat = nil
        if let outputManager { ka_xdg_output_manager_destroy(outputManager) }
        outputManager = nil
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

/// One output's probe, classifier and reported keyboards.
final class WatchedOutputState {
    let watched: WatchedOutput
    var probe: UsableAreaProbe?
    var probeClosed = false
    var classifier = InsetClassifier()
    var insets: EdgeInsets?
    /// Keyboards delivered as shown, by edge, and the output they were delivered with.
    var reported: [Edge: Rect] = [:]
    var reportedOutput: Output?

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
