import CWayland
import CWaylandProtocols
import KeyboardBackendInterface

/// The globals both Wayland backends bind alike: xdg-output's manager (outputs' logical
/// geometry) and the seat (the keyboard layout). A session offers each announced global here
/// first, and handles the rest itself. Used on the loop's thread only.
package final class SharedGlobals {
    private let registry: OpaquePointer
    private var outputManager: OpaquePointer?
    private var seat: SeatLayout?
    private var seatGlobal: UInt32?
    /// Called when the seat's layout changes, or the seat goes.
    package var onLayout: (() -> Void)?

    /// Binds through `registry` (the `wl_registry`).
    package init(registry: OpaquePointer) {
        self.registry = registry
    }

    /// Binds global `name` when it is xdg-output's manager or the seat; false for any other
    /// interface. One of each is bound: a second announcement would leak the first proxy.
    package func bind(_ name: UInt32, _ interface: String, _ version: UInt32) -> Bool {
        switch interface {
        case "zxdg_output_manager_v1":
            guard outputManager == nil else { return false }
            outputManager = OpaquePointer(
                wl_registry_bind(registry, name, ka_zxdg_output_manager_v1_interface(), min(version, 3)))
        case "wl_seat":
            guard seat == nil else { return false }
            let layout = SeatLayout(registry: registry, globalName: name, version: version)
            layout.onChange = { [unowned self] in onLayout?() }
            seat = layout
            seatGlobal = name
        default:
            return false
        }
        return true
    }

    /// Asks `output` for its logical geometry, once xdg-output's manager is bound (a manager
    /// announced after the output completes it then).
    package func attach(_ output: WatchedOutput) {
        if let outputManager { output.attach(manager: outputManager) }
    }

    /// Global `name` went away: true when it was the seat (the layout is nil from now on).
    package func remove(_ name: UInt32) -> Bool {
        guard name == seatGlobal else { return false }
        seat?.destroy()
        seat = nil
        seatGlobal = nil
        onLayout?()
        return true
    }

    /// The seat keyboard's active layout, if any.
    package var layout: InputLayout? { seat?.layout }

    /// Releases the seat and the manager (after the outputs' xdg-outputs).
    package func destroy() {
        onLayout = nil
        seat?.destroy()
        seat = nil
        if let outputManager { ka_xdg_output_manager_destroy(outputManager) }
        outputManager = nil
    }
}
