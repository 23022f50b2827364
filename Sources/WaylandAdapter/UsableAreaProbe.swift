import CWayland
import CWaylandProtocols
import KeyboardBackendInterface
import WaylandClient

/// The globals a probe needs, bound by the session.
struct ProbeGlobals {
    /// `wl_compositor`.
    var compositor: OpaquePointer
    /// `zwlr_layer_shell_v1`.
    var layerShell: OpaquePointer
    /// `xdg_wm_base`, for the origin query; without it the origin is taken as the output's.
    var wmBase: OpaquePointer?
}

/// An invisible layer surface on one output that the compositor keeps sized to the output's
/// usable area (the output minus every exclusive zone): background layer, anchored to all four
/// edges, size 0×0, exclusive zone 0, empty input region, no keyboard focus, never mapped.
///
/// A configure carries only the size. When the size is the whole output's, the origin can only be
/// the output's, and the area is reported at once (a keyboard hiding with no panel left, the
/// start without one). After any other size change an unmapped xdg_popup with an off-screen
/// offset is parented to it: the compositor slides the popup back onto the output, and the
/// popup's position relative to the probe is minus the usable area's origin. One popup is in
/// flight at a time; a change while it flies asks again when it lands.
final class UsableAreaProbe {
    private let globals: ProbeGlobals
    private let surface: OpaquePointer
    private var layerSurface: OpaquePointer?
    /// Size of the usable area from the last configure.
    private var size: (width: Int, height: Int)?
    /// The last reported area, relative to the output's origin.
    private(set) var usable: Rect?
    private var popup: OriginQuery?
    private var askAgain = false
    /// The output's logical size, once the output has said it; set by the session. It may come
    /// (or change, as xdg-output's logical size replaces the mode's) after the configure whose
    /// size it matches, while that size's popup is still out: the area is reported then.
    var outputSize: (width: Int, height: Int)? {
        didSet { reportIfWholeOutput() }
    }

    /// Called on the loop thread with each new usable area, relative to the output's origin.
    var onUsableArea: ((Rect) -> Void)?
    /// Called when the compositor closes the probe (its output went away).
    var onClosed: (() -> Void)?

    /// The namespace compositors see; configs can match it (and should leave it alone).
    static let namespace = "keyboard-geometry-probe"

    /// Creates the probe on `output` and commits it (no buffer: it stays unmapped).
    init(globals: ProbeGlobals, output: OpaquePointer) {
        self.globals = globals
        surface = wl_compositor_create_surface(globals.compositor)
        let region = wl_compositor_create_region(globals.compositor)
        wl_surface_set_input_region(surface, region)
        wl_region_destroy(region)
        let layer = ka_layer_shell_get_layer_surface(
            globals.layerShell, surface, output, UInt32(KA_LAYER_BACKGROUND), Self.namespace)!
        layerSurface = layer
        ka_layer_surface_set_anchor(
            layer, UInt32(KA_ANCHOR_TOP | KA_ANCHOR_BOTTOM | KA_ANCHOR_LEFT | KA_ANCHOR_RIGHT))
        ka_layer_surface_set_size(layer, 0, 0)
        ka_layer_surface_set_exclusive_zone(layer, 0)
        ka_layer_surface_set_keyboard_interactivity(layer, 0)
        ka_layer_surface_add_listener(layer, layerSurfaceListener, Unmanaged.passUnretained(self).toOpaque())
        wl_surface_commit(surface)
    }

    /// Releases every proxy; no callback comes after this.
    func destroy() {
        popup?.destroy()
        popup = nil
        if let layerSurface { ka_layer_surface_destroy(layerSurface) }
        layerSurface = nil
        wl_surface_destroy(surface)
        onUsableArea = nil
        onClosed = nil
    }

    fileprivate func configured(serial: UInt32, width: UInt32, height: UInt32) {
        guard let layerSurface else { return }
        ka_layer_surface_ack_configure(layerSurface, serial)
        wl_surface_commit(surface)
        // An empty area is no usable area (an output being turned off), not a screen-sized keyboard.
        guard width > 0, height > 0 else { return }
        // Sway repeats configures (2-3 per change, and one whenever any layer surface commits).
        let next = (Int(width), Int(height))
        if let size, size == next { return }
        size = next
        if !reportIfWholeOutput() { queryOrigin() }
    }

    /// Reports the area at the output's origin when the last configured size is the whole
    /// output's: nothing is reserved, so there is no question to ask, and an answer in flight is
    /// moot. Returns whether it was.
    @discardableResult
    private func reportIfWholeOutput() -> Bool {
        guard isWholeOutput else { return false }
        askAgain = false
        report(origin: (0, 0))
        return true
    }

    /// Whether the last configured size is the whole output's.
    private var isWholeOutput: Bool {
        guard let size, let outputSize else { return false }
        return size == outputSize
    }

    private func queryOrigin() {
        guard popup == nil else {
            askAgain = true
            return
        }
        guard let layerSurface, let wmBase = globals.wmBase else {
            report(origin: (0, 0))
            return
        }
        popup = OriginQuery(compositor: globals.compositor, wmBase: wmBase, parent: layerSurface) {
            [unowned self] origin in
            popup?.destroy()
            popup = nil
            // Already reported, when the size or the output's size came: the whole output.
            if isWholeOutput { return }
            // The area changed while the popup was out: its answer may predate the change, so
            // ask again rather than report a frame that never was.
            if askAgain {
                askAgain = false
                queryOrigin()
            } else if let origin {
                report(origin: origin)
            }
            // No answer: the edge the space was reserved at is unknown, and a guessed origin would
            // place a keyboard where none may be; the area is reported at its next change instead.
        }
    }

    private func report(origin: (x: Int, y: Int)) {
        guard let size else { return }
        let area = Rect(x: origin.x, y: origin.y, width: size.width, height: size.height)
        guard area != usable else { return }
        usable = area
        onUsableArea?(area)
    }

    fileprivate func closed() {
        onClosed?()
    }
}

private func probe(_ data: UnsafeMutableRawPointer?) -> UsableAreaProbe {
    Unmanaged<UsableAreaProbe>.fromOpaque(data!).takeUnretainedValue()
}

// A C listener table: written once, then only read by libwayland on the loop thread.
nonisolated(unsafe) private let layerSurfaceListener = permanent(
    ka_layer_surface_listener(
        configure: { data, _, serial, width, height in
            probe(data).configured(serial: serial, width: width, height: height)
        },
        closed: { data, _ in probe(data).closed() }))
