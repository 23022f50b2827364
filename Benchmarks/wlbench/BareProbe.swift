import CWayland
import CWaylandProtocols
import Foundation
import KeyboardAdapterCore
import KeyboardBackendInterface
import Synchronization

/// The floor to compare with: a bare libwayland layer-shell probe on its own connection and
/// thread that only timestamps configures whose size changed (no origin query, no tracker).
/// After each such configure it also makes one round trip (wl_display_sync) and stamps its
/// answer: the floor for a backend that asks the compositor one more thing before it can tell.
final class BareProbe: @unchecked Sendable {
    private let display: OpaquePointer
    private var compositor: OpaquePointer?
    private var layerShell: OpaquePointer?
    private var lastHeight: UInt32 = 0
    /// Monotonic times and heights of the size changes seen.
    let changes = Mutex<[(time: Double, height: UInt32)]>([])
    /// Monotonic times at which the round trip after each size change came back, in order.
    let roundTrips = Mutex<[Double]>([])

    init(socket: String) throws {
        guard let display = wl_display_connect(socket) else {
            throw BenchError("bare probe cannot connect to \(socket)")
        }
        self.display = display
        let registry = wl_display_get_registry(display)
        wl_registry_add_listener(registry, bareRegistryListener, Unmanaged.passUnretained(self).toOpaque())
        wl_display_roundtrip(display)
        guard let compositor, let layerShell else { throw BenchError("bare probe: no compositor or layer shell") }
        let surface = wl_compositor_create_surface(compositor)
        let layer = ka_layer_shell_get_layer_surface(
            layerShell, surface, nil, UInt32(KA_LAYER_BACKGROUND), "bare-probe")!
        ka_layer_surface_set_anchor(layer, UInt32(KA_ANCHOR_TOP | KA_ANCHOR_BOTTOM | KA_ANCHOR_LEFT | KA_ANCHOR_RIGHT))
        ka_layer_surface_set_size(layer, 0, 0)
        ka_layer_surface_add_listener(layer, bareLayerListener, Unmanaged.passUnretained(self).toOpaque())
        wl_surface_commit(surface)
        wl_display_roundtrip(display)
    }

    /// Dispatches on a thread of its own until the compositor goes away.
    func run() {
        let box = self
        Thread.detachNewThread {
            Thread.current.name = "bare-probe"
            while wl_display_dispatch(box.display) >= 0 {}
        }
    }

    fileprivate func global(_ registry: OpaquePointer, _ name: UInt32, _ interface: String, _ version: UInt32) {
        if interface == "wl_compositor" {
            compositor = OpaquePointer(wl_registry_bind(registry, name, ka_wl_compositor_interface(), 4))
        } else if interface == "zwlr_layer_shell_v1" {
            layerShell = OpaquePointer(wl_registry_bind(registry, name, ka_zwlr_layer_shell_v1_interface(), 1))
        }
    }

    fileprivate func configure(_ layer: OpaquePointer, serial: UInt32, height: UInt32) {
        let now = MonotonicClock.now()
        ka_layer_surface_ack_configure(layer, serial)
        guard height != lastHeight else { return }
        lastHeight = height
        changes.withLock { $0.append((now, height)) }
        let callback = wl_display_sync(display)
        wl_callback_add_listener(callback, bareSyncListener, Unmanaged.passUnretained(self).toOpaque())
        wl_display_flush(display)
    }

    fileprivate func synced(_ callback: OpaquePointer) {
        let now = MonotonicClock.now()
        wl_callback_destroy(callback)
        roundTrips.withLock { $0.append(now) }
    }
}

private func bare(_ data: UnsafeMutableRawPointer?) -> BareProbe {
    Unmanaged<BareProbe>.fromOpaque(data!).takeUnretainedValue()
}

nonisolated(unsafe) private let bareRegistryListener: UnsafeMutablePointer<wl_registry_listener> = {
    let pointer = UnsafeMutablePointer<wl_registry_listener>.allocate(capacity: 1)
    pointer.initialize(
        to: wl_registry_listener(
            global: { data, registry, name, interface, version in
                bare(data).global(registry!, name, String(cString: interface!), version)
            },
            global_remove: { _, _, _ in }))
    return pointer
}()

nonisolated(unsafe) private let bareSyncListener: UnsafeMutablePointer<wl_callback_listener> = {
    let pointer = UnsafeMutablePointer<wl_callback_listener>.allocate(capacity: 1)
    pointer.initialize(to: wl_callback_listener(done: { data, callback, _ in bare(data).synced(callback!) }))
    return pointer
}()

nonisolated(unsafe) private let bareLayerListener: UnsafeMutablePointer<ka_layer_surface_listener> = {
    let pointer = UnsafeMutablePointer<ka_layer_surface_listener>.allocate(capacity: 1)
    pointer.initialize(
        to: ka_layer_surface_listener(
            configure: { data, layer, serial, _, height in bare(data).configure(layer!, serial: serial, height: height)
            },
            closed: { _, _ in }))
    return pointer
}()

/// A benchmark that cannot run, and why.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
