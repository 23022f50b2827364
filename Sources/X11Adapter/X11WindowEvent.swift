/// An X window id (Xlib's `Window`, a C `unsigned long`), named here so that the window model
/// needs no Xlib module.
typealias WindowID = UInt

/// An X atom (Xlib's `Atom`, a C `unsigned long`).
typealias AtomID = UInt

/// A window's geometry as the server states it: the outer corner relative to the parent, the
/// inner size and the border width. Xlib hands these over as C ints; they stay 32-bit here, so
/// that no sum the model makes of them can overflow.
struct X11Geometry: Sendable, Hashable {
    /// The outer corner (border included), relative to the parent's inner corner.
    var x: Int32
    /// See `x`.
    var y: Int32
    /// The inner size; never negative.
    var width: Int32
    /// See `width`.
    var height: Int32
    /// The border width; never negative.
    var border: Int32

    /// A geometry whose sizes below zero, which no server sends, count as zero: frames the model
    /// reports never have a negative size.
    init(x: Int32, y: Int32, width: Int32, height: Int32, border: Int32) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
        self.border = max(0, border)
    }
}

/// The X events the window model follows, decoded from Xlib's `XEvent` by the adapter so that
/// the model can be fed without an X server.
enum X11WindowEvent: Sendable, Hashable {
    /// CreateNotify: `window` was created in `parent`.
    case created(window: WindowID, parent: WindowID, geometry: X11Geometry, overrideRedirect: Bool)
    /// DestroyNotify.
    case destroyed(WindowID)
    /// ReparentNotify: `window` now sits in `parent` at (`x`, `y`).
    case reparented(window: WindowID, parent: WindowID, x: Int32, y: Int32)
    /// ConfigureNotify. `synthetic` is set for one a client sent (`send_event`): window managers
    /// send those with root coordinates.
    case configured(window: WindowID, geometry: X11Geometry, synthetic: Bool)
    /// MapNotify.
    case mapped(WindowID)
    /// UnmapNotify. `synthetic` is set for a client's withdraw notice to the window manager.
    case unmapped(WindowID, synthetic: Bool)
    /// PropertyNotify: `atom` of `window` changed or was deleted.
    case propertyChanged(window: WindowID, atom: AtomID)
    /// A RandR screen, CRTC or output change: the monitors may differ.
    case monitorsChanged
    /// An XKB group switch: the active layout may differ.
    case layoutGroupChanged
}
