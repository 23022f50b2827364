import CWayland
import CWaylandProtocols
import WaylandClient

/// One unmapped xdg_popup asking where a layer surface sits on its output. The popup is placed
/// far off-screen with slide constraints; the compositor slides it back into the output, so its
/// configured position relative to the parent is minus the parent's origin on the output.
/// Verified on sway 1.7 (wlroots unconstrains layer-shell popups against the output box).
final class OriginQuery {
    private let surface: OpaquePointer
    private var xdgSurface: OpaquePointer?
    private var popup: OpaquePointer?
    private var position: (x: Int, y: Int)?
    private var done: ((_ origin: (x: Int, y: Int)?) -> Void)?

    /// Far enough that the slide always happens.
    private static let offset: Int32 = -100_000

    /// Sends the query; `done` gets the parent's origin relative to its output, or nil when the
    /// compositor dismissed the popup without placing it.
    init(
        compositor: OpaquePointer, wmBase: OpaquePointer, parent: OpaquePointer,
        done: @escaping (_ origin: (x: Int, y: Int)?) -> Void
    ) {
        self.done = done
        surface = wl_compositor_create_surface(compositor)
        let xdg = ka_wm_base_get_xdg_surface(wmBase, surface)!
        xdgSurface = xdg
        let positioner = ka_wm_base_create_positioner(wmBase)!
        ka_positioner_set_size(positioner, 1, 1)
        ka_positioner_set_anchor_rect(positioner, 0, 0, 1, 1)
        ka_positioner_set_anchor(positioner, UInt32(KA_POSITIONER_ANCHOR_TOP_LEFT))
        ka_positioner_set_gravity(positioner, UInt32(KA_POSITIONER_GRAVITY_BOTTOM_RIGHT))
        ka_positioner_set_offset(positioner, Self.offset, Self.offset)
        ka_positioner_set_constraint_adjustment(
            positioner, UInt32(KA_POSITIONER_CONSTRAINT_SLIDE_X | KA_POSITIONER_CONSTRAINT_SLIDE_Y))
        let popup = ka_xdg_surface_get_popup(xdg, nil, positioner)!
        self.popup = popup
        ka_positioner_destroy(positioner)
        let context = Unmanaged.passUnretained(self).toOpaque()
        ka_xdg_surface_add_listener(xdg, xdgSurfaceListener, context)
        ka_xdg_popup_add_listener(popup, popupListener, context)
        ka_layer_surface_get_popup(parent, popup)
        wl_surface_commit(surface)
    }

    /// Releases the popup, its xdg_surface and its surface, in the order the protocol requires.
    func destroy() {
        if let popup { ka_xdg_popup_destroy(popup) }
        popup = nil
        if let xdgSurface { ka_xdg_surface_destroy(xdgSurface) }
        xdgSurface = nil
        wl_surface_destroy(surface)
        done = nil
    }

    fileprivate func placed(x: Int32, y: Int32) { position = (-Int(x), -Int(y)) }

    /// The configure sequence ends with xdg_surface.configure: the position is final then.
    fileprivate func configured() { finish(position) }

    fileprivate func dismissed() { finish(nil) }

    private func finish(_ origin: (x: Int, y: Int)?) {
        guard let done else { return }
        self.done = nil
        done(origin)
    }
}

private func query(_ data: UnsafeMutableRawPointer?) -> OriginQuery {
    Unmanaged<OriginQuery>.fromOpaque(data!).takeUnretainedValue()
}

// A C listener table: written once, then only read by libwayland on the loop thread.
nonisolated(unsafe) private let xdgSurfaceListener = permanent(
    ka_xdg_surface_listener(
        configure: { data, _, _ in query(data).configured() }))

// A C listener table: written once, then only read by libwayland on the loop thread.
nonisolated(unsafe) private let popupListener = permanent(
    ka_xdg_popup_listener(
        configure: { data, _, x, y, _, _ in query(data).placed(x: x, y: y) },
        popup_done: { data, _ in query(data).dismissed() }))
