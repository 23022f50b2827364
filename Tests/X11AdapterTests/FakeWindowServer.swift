import KeyboardAdapterCore

@testable import X11Adapter

/// An X server kept in memory for the window model: windows with their geometry, mapping and
/// properties, answered the way a server answers (cut-short properties, nil once a window is
/// gone). It also counts the questions asked, so that tests can say which changes cost a round trip.
final class FakeWindowServer: WindowServer {
    /// One window as the fake server keeps it.
    struct Window {
        /// The parent window.
        var parent: WindowID
        /// Relative to the parent, as `XGetGeometry` gives it.
        var geometry: X11Geometry
        /// Whether the window itself is mapped.
        var isMapped = false
        /// Whether it bypasses the window manager.
        var overrideRedirect = false
        /// Its properties by atom.
        var properties: [AtomID: XProperty] = [:]
    }

    /// The root window.
    let root: WindowID = 1
    /// The screen's size.
    var screenSize = (width: 1280, height: 800)
    /// Every window but the root, and the stacking order of each parent's children.
    private(set) var windows: [WindowID: Window] = [:]
    private(set) var children: [WindowID: [WindowID]] = [:]
    /// The root's own properties.
    private var rootProperties: [AtomID: XProperty] = [:]
    /// The window with the X input focus.
    var focus: WindowID = 0
    /// The RandR monitors.
    var outputs: [Output] = []
    /// The process of each window's client, as X-Resource tells it; none: the server cannot tell.
    var processes: [WindowID: Int32] = [:]
    /// The layout reported by `followInputLayout`; nil plays a server without XKB.
    var layout: FakeLayoutSource?

    /// The windows whose events were asked for, and whether the root's were.
    private(set) var selected: Set<WindowID> = []
    private(set) var rootSelected = false
    /// Geometry questions asked (attributes, geometry, position, tree): round trips on a real server.
    private(set) var geometryQueries = 0
    /// Each property read, with the most items asked for.
    private(set) var propertyReads: [(window: WindowID, atom: AtomID, maxItems: Int)] = []

    /// Interned atoms; the predefined ones have their fixed numbers.
    private var atoms: [String: AtomID] = ["STRING": PredefinedAtom.string, "WM_CLASS": PredefinedAtom.wmClass]
    private var nextAtom: AtomID = 1000

    // MARK: The server's state, changed by tests

    /// Creates a window, on top of its siblings.
    func addWindow(_ id: WindowID, parent: WindowID, geometry: X11Geometry, overrideRedirect: Bool = false) {
        windows[id] = Window(parent: parent, geometry: geometry, overrideRedirect: overrideRedirect)
        children[parent, default: []].append(id)
    }

    /// Destroys a window and everything inside it.
    func removeWindow(_ id: WindowID) {
        guard let window = windows.removeValue(forKey: id) else { return }
        children[window.parent]?.removeAll { $0 == id }
        for child in children.removeValue(forKey: id) ?? [] { removeWindow(child) }
    }

    /// Reparents a window to (`x`, `y`) in `parent`, on top of its new siblings.
    func setParent(_ id: WindowID, _ parent: WindowID, x: Int32, y: Int32) {
        guard let old = windows[id]?.parent else { return }
        children[old]?.removeAll { $0 == id }
        children[parent, default: []].append(id)
        windows[id]?.parent = parent
        windows[id]?.geometry.x = x
        windows[id]?.geometry.y = y
    }

    /// Moves or resizes a window.
    func setGeometry(_ id: WindowID, _ geometry: X11Geometry) { windows[id]?.geometry = geometry }
    /// Maps or unmaps a window.
    func setMapped(_ id: WindowID, _ isMapped: Bool) { windows[id]?.isMapped = isMapped }

    /// Sets or (with nil) deletes a property of a window or the root.
    func setProperty(_ id: WindowID, _ name: String, _ property: XProperty?) {
        if id == root {
            rootProperties[atom(name)] = property
        } else {
            windows[id]?.properties[atom(name)] = property
        }
    }

    /// A format-8 property of type `type`.
    func setText(_ id: WindowID, _ name: String, _ bytes: [UInt8], type: String = "UTF8_STRING") {
        setProperty(id, name, XProperty(type: atom(type), format: 8, bytes: bytes, values: []))
    }

    /// A format-32 property of type `type`.
    func setValues(_ id: WindowID, _ name: String, _ values: [UInt], type: String = "CARDINAL") {
        setProperty(id, name, XProperty(type: atom(type), format: 32, bytes: [], values: values))
    }

    /// Forgets the questions asked so far.
    func clearCounts() {
        geometryQueries = 0
        propertyReads = []
    }

    // MARK: WindowServer

    func selectRootEvents() { rootSelected = true }
    func selectWindowEvents(_ window: WindowID) { selected.insert(window) }
    func flush() {}

    func atom(_ name: String) -> AtomID {
        if let known = atoms[name] { return known }
        nextAtom += 1
        atoms[name] = nextAtom
        return nextAtom
    }

    func atomName(_ atom: AtomID) -> String? { atoms.first { $0.value == atom }?.key }

    func property(_ window: WindowID, _ property: AtomID, maxItems: Int) -> XProperty? {
        propertyReads.append((window, property, maxItems))
        guard var value = window == root ? rootProperties[property] : windows[window]?.properties[property] else {
            return nil
        }
        // A server returns at most `maxItems` 32-bit units.
        value.bytes = Array(value.bytes.prefix(maxItems * 4))
        value.values = Array(value.values.prefix(value.format == 16 ? maxItems * 2 : maxItems))
        return value
    }

    func attributes(_ window: WindowID) -> WindowAttributes? {
        geometryQueries += 1
        guard let found = windows[window] else { return nil }
        return WindowAttributes(
            geometry: found.geometry, isMapped: found.isMapped, overrideRedirect: found.overrideRedirect)
    }

    func geometry(of window: WindowID) -> X11Geometry? {
        geometryQueries += 1
        return windows[window]?.geometry
    }

    func position(of window: WindowID, in ancestor: WindowID) -> (x: Int32, y: Int32)? {
        geometryQueries += 1
        guard let inner = innerCorner(window), let other = innerCorner(ancestor) else { return nil }
        return (Int32(clamping: inner.x - other.x), Int32(clamping: inner.y - other.y))
    }

    func tree(of window: WindowID) -> (parent: WindowID, children: [WindowID])? {
        geometryQueries += 1
        guard window == root || windows[window] != nil else { return nil }
        return (windows[window]?.parent ?? 0, children[window] ?? [])
    }

    func inputFocus() -> WindowID? { focus }
    func clientProcess(of window: WindowID) -> Int32? { windows[window] != nil ? processes[window] : nil }
    func monitors() -> [Output] { outputs }
    func followInputLayout() -> (any InputLayoutSource)? { layout }

    /// The root position of the window's inner corner.
    private func innerCorner(_ window: WindowID) -> (x: Int, y: Int)? {
        if window == root { return (0, 0) }
        guard let found = windows[window], let parent = innerCorner(found.parent) else { return nil }
        let border = Int(found.geometry.border)
        return (parent.x + Int(found.geometry.x) + border, parent.y + Int(found.geometry.y) + border)
    }
}

/// A keyboard layout a test switches by hand.
final class FakeLayoutSource: InputLayoutSource {
    private(set) var current: InputLayout?
    /// What the next `refresh` reads.
    var next: InputLayout?

    /// A source whose layout is `layout` until a test sets `next`.
    init(_ layout: InputLayout?) {
        current = layout
        next = layout
    }

    func refresh() -> Bool {
        guard next != current else { return false }
        current = next
        return true
    }
}
