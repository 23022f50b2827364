import CWayland
import CWaylandProtocols
import Foundation
import KeyboardAdapterCore
import TestSupport

/// A stand-in docked keyboard for the edges no packaged keyboard docks to (top, left, right): a
/// mapped layer surface on the overlay layer with an exclusive zone, like wvkbd at the bottom.
/// Driven synchronously with round trips; the surface goes away with `remove()`.
final class FakeDock {
    private let display: OpaquePointer
    private var compositor: OpaquePointer?
    private var shm: OpaquePointer?
    private var layerShell: OpaquePointer?
    private var surface: OpaquePointer?
    private var layerSurface: OpaquePointer?
    private var buffer: OpaquePointer?
    fileprivate var configured: (serial: UInt32, width: UInt32, height: UInt32)?

    /// Docks a strip `thickness` logical pixels deep to `edge` of the compositor's first output.
    init(socket: String, edge: Edge, thickness: Int) throws {
        guard let display = wl_display_connect(socket) else { throw TestFailure("fake dock cannot connect") }
        self.display = display
        let registry = wl_display_get_registry(display)
        wl_registry_add_listener(registry, dockRegistryListener, Unmanaged.passUnretained(self).toOpaque())
        wl_display_roundtrip(display)
        guard let compositor, let shm, let layerShell else {
            throw TestFailure("fake dock: compositor lacks wl_compositor, wl_shm or zwlr_layer_shell_v1")
        }
        let surface = wl_compositor_create_surface(compositor)!
        self.surface = surface
        let layer = ka_layer_shell_get_layer_surface(layerShell, surface, nil, 3, "fake-dock")!
        layerSurface = layer
        let anchors: [Edge: Int] = [
            .top: KA_ANCHOR_TOP | KA_ANCHOR_LEFT | KA_ANCHOR_RIGHT,
            .bottom: KA_ANCHOR_BOTTOM | KA_ANCHOR_LEFT | KA_ANCHOR_RIGHT,
            .left: KA_ANCHOR_LEFT | KA_ANCHOR_TOP | KA_ANCHOR_BOTTOM,
            .right: KA_ANCHOR_RIGHT | KA_ANCHOR_TOP | KA_ANCHOR_BOTTOM,
        ]
        ka_layer_surface_set_anchor(layer, UInt32(anchors[edge]!))
        let horizontal = edge == .top || edge == .bottom
        ka_layer_surface_set_size(layer, horizontal ? 0 : UInt32(thickness), horizontal ? UInt32(thickness) : 0)
        ka_layer_surface_set_exclusive_zone(layer, Int32(thickness))
        ka_layer_surface_add_listener(layer, dockLayerListener, Unmanaged.passUnretained(self).toOpaque())
        wl_surface_commit(surface)
        wl_display_roundtrip(display)
        guard let configured else { throw TestFailure("fake dock was never configured") }
        ka_layer_surface_ack_configure(layer, configured.serial)
        buffer = try Self.buffer(shm, width: Int32(configured.width), height: Int32(configured.height))
        wl_surface_attach(surface, buffer, 0, 0)
        wl_surface_commit(surface)
        wl_display_roundtrip(display)
    }

    /// A transparent ARGB buffer in a shared-memory file.
    private static func buffer(_ shm: OpaquePointer, width: Int32, height: Int32) throws -> OpaquePointer {
        var template = Array("/tmp/fake-dock-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { throw TestFailure("fake dock: mkstemp failed") }
        defer { close(fd) }
        unlink(template)
        let size = width * 4 * height
        guard ftruncate(fd, off_t(size)) == 0 else { throw TestFailure("fake dock: ftruncate failed") }
        let pool = wl_shm_create_pool(shm, fd, size)
        defer { wl_shm_pool_destroy(pool) }
        return wl_shm_pool_create_buffer(pool, 0, width, height, width * 4, WL_SHM_FORMAT_ARGB8888.rawValue)!
    }

    /// Unmaps and destroys the surface, and waits until the compositor has seen it.
    func remove() {
        if let layerSurface { ka_layer_surface_destroy(layerSurface) }
        layerSurface = nil
        if let surface { wl_surface_destroy(surface) }
        surface = nil
        if let buffer { wl_buffer_destroy(buffer) }
        buffer = nil
        wl_display_roundtrip(display)
    }

    deinit {
        remove()
        wl_display_disconnect(display)
    }

    fileprivate func global(_ registry: OpaquePointer, _ name: UInt32, _ interface: String) {
        switch interface {
        case "wl_compositor":
            compositor = OpaquePointer(wl_registry_bind(registry, name, ka_wl_compositor_interface(), 4))
        case "wl_shm": shm = OpaquePointer(wl_registry_bind(registry, name, ka_wl_shm_interface(), 1))
        case "zwlr_layer_shell_v1":
            layerShell = OpaquePointer(wl_registry_bind(registry, name, ka_zwlr_layer_shell_v1_interface(), 1))
        default: break
        }
    }
}

private func dock(_ data: UnsafeMutableRawPointer?) -> FakeDock {
    Unmanaged<FakeDock>.fromOpaque(data!).takeUnretainedValue()
}

nonisolated(unsafe) private let dockRegistryListener: UnsafeMutablePointer<wl_registry_listener> = {
    let pointer = UnsafeMutablePointer<wl_registry_listener>.allocate(capacity: 1)
    pointer.initialize(
        to: wl_registry_listener(
            global: { data, registry, name, interface, _ in
                dock(data).global(registry!, name, String(cString: interface!))
            },
            global_remove: { _, _, _ in }))
    return pointer
}()

nonisolated(unsafe) private let dockLayerListener: UnsafeMutablePointer<ka_layer_surface_listener> = {
    let pointer = UnsafeMutablePointer<ka_layer_surface_listener>.allocate(capacity: 1)
    pointer.initialize(
        to: ka_layer_surface_listener(
            configure: { data, _, serial, width, height in dock(data).configured = (serial, width, height) },
            closed: { _, _ in }))
    return pointer
}()
