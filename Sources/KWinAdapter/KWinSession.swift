import CWayland
import KeyboardBackendInterface
import WaylandClient

/// The Wayland side of the kwin backend: the outputs (with xdg-output) and the seat's layout.
/// KWin's virtual keyboard has no Wayland surface a client can see, so nothing else is bound.
/// Lives on the loop's thread after `bind`.
final class KWinSession: ShortSession {
    let connection: WaylandDisplay
    private let registry: Registry
    private let shared: SharedGlobals
    private var outputs: [UInt32: WatchedOutput] = [:]
    /// Called on the loop's thread when an output is announced, changes (its output) or goes (nil).
    var onOutput: ((UInt32, Output?) -> Void)?
    /// Called on the loop's thread when the seat's layout changes.
    var onLayout: ((InputLayout?) -> Void)?

    /// Connects and reads the globals (one roundtrip); binds nothing yet.
    init(display name: String?) throws(WaylandError) {
        connection = try WaylandDisplay(name: name)
        registry = Registry(display: connection.display)
        shared = SharedGlobals(registry: registry.proxy)
        try connection.roundtrip()
    }

    /// The KWin-only globals this compositor offers (empty: not KWin).
    var kwinGlobalsOffered: [String] { registry.kwinGlobalsOffered }

    /// Binds the outputs, xdg-output and the seat, and waits for their first state.
    func bind() throws(WaylandError) {
        registry.onGlobal = { [unowned self] name, interface, version in bindGlobal(name, interface, version) }
        registry.onRemove = { [unowned self] name in removeGlobal(name) }
        shared.onLayout = { [unowned self] in onLayout?(shared.layout) }
        for (name, global) in registry.globals.sorted(by: { $0.key < $1.key }) {
            bindGlobal(name, global.interface, global.version)
        }
        // Output details and the keymap, then xdg-output's logical geometry.
        for _ in 0..<2 { try connection.roundtrip() }
    }

    private func bindGlobal(_ name: UInt32, _ interface: String, _ version: UInt32) {
        if !shared.bind(name, interface, version) {
            guard interface == "wl_output" else { return }
            let watched = WatchedOutput(registry: registry.proxy, globalName: name, version: version)
            outputs[name] = watched
            watched.onDone = { [unowned self, unowned watched] in onOutput?(watched.globalName, watched.output) }
        }
        for output in outputs.values { shared.attach(output) }
    }

    private func removeGlobal(_ name: UInt32) {
        if let output = outputs.removeValue(forKey: name) {
            output.destroy()
            onOutput?(name, nil)
        } else {
            _ = shared.remove(name)
        }
    }

    /// The outputs announced so far, by global name.
    var currentOutputs: [UInt32: Output] { outputs.compactMapValues(\.output) }

    /// The seat keyboard's layout, if any.
    var layout: InputLayout? { shared.layout }

    /// Releases every proxy (the connection goes with the session).
    func destroy() {
        onOutput = nil
        onLayout = nil
        for output in outputs.values { output.destroy() }
        outputs = [:]
        shared.destroy()
        registry.destroy()
        wl_display_flush(connection.display)
    }
}
