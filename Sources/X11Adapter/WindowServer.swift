import KeyboardBackendInterface

/// What the window model asks of the X server, and the few requests it makes. `XDisplay` answers
/// over Xlib; tests answer from memory, so that the model runs without a server. Every query
/// returns nil once the window is gone: windows vanish between an event and the next question.
protocol WindowServer: AnyObject {
    /// The root window of the screen followed.
    var root: WindowID { get }
    /// The size of the screen, in pixels.
    var screenSize: (width: Int, height: Int) { get }

    /// Asks for the root's substructure, structure and property events, and for monitor changes.
    func selectRootEvents()
    /// Asks for a followed window's own structure and property events.
    func selectWindowEvents(_ window: WindowID)
    /// Sends buffered requests.
    func flush()

    /// Makes the atoms the model asks for at its start known at once, where the server allows
    /// asking for many in one request.
    func prepareAtoms()
    /// The atom for `name`.
    func atom(_ name: String) -> AtomID
    /// The name of `atom`; nil when the server knows no such atom.
    func atomName(_ atom: AtomID) -> String?
    /// A property, at most `maxItems` 32-bit units of it, as a server cuts a long one short.
    func property(_ window: WindowID, _ property: AtomID, maxItems: Int) -> XProperty?

    /// The window's attributes.
    func attributes(_ window: WindowID) -> WindowAttributes?
    /// The window's geometry.
    func geometry(of window: WindowID) -> X11Geometry?
    /// Where `window`'s inner corner is in `ancestor`'s inner coordinates, in one request.
    func position(of window: WindowID, in ancestor: WindowID) -> (x: Int32, y: Int32)?
    /// The window's parent and children (bottom to top).
    func tree(of window: WindowID) -> (parent: WindowID, children: [WindowID])?
    /// The window with the X input focus (may be None, PointerRoot or a child window).
    func inputFocus() -> WindowID?
    /// The process of the client that created `window`, as the server knows it (X-Resource);
    /// nil when it cannot tell.
    func clientProcess(of window: WindowID) -> Int32?

    /// The monitors (RandR), named as `xrandr --listmonitors` names them; empty without RandR.
    func monitors() -> [Output]
    /// Starts following the active input layout; nil when the server has no usable XKB.
    func followInputLayout() -> (any InputLayoutSource)?
}

/// The active input layout of the server, as last read.
protocol InputLayoutSource: AnyObject {
    /// The layout as last read.
    var current: InputLayout? { get }
    /// Reads the layout again; true when it changed.
    func refresh() -> Bool
}

/// A property as stored on the server: its type, format and items.
struct XProperty: Sendable, Hashable {
    /// The property's type atom.
    var type: AtomID
    /// 8, 16 or 32.
    var format: Int32
    /// The raw bytes, for format 8.
    var bytes: [UInt8]
    /// The items, for formats 16 and 32 (format 32 items are C `long`s in Xlib's memory).
    var values: [UInt]
}

/// The attributes of a window that tracking needs.
struct WindowAttributes: Sendable, Hashable {
    /// Position relative to the parent (the outer corner), inner size and border.
    var geometry: X11Geometry
    /// Whether the window itself is mapped (viewable or not).
    var isMapped: Bool
    /// Whether the window bypasses the window manager.
    var overrideRedirect: Bool
}

extension WindowServer {
    /// Nothing to prepare by default: each atom is asked for when first needed.
    func prepareAtoms() {}
}
