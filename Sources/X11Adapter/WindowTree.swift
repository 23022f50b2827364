import KeyboardBackendInterface

/// One window the model selected events on: a top-level (client or frame) or a client inside a
/// frame.
struct TrackedWindow {
    /// The immediate parent.
    var parent: WindowID
    /// Geometry relative to the parent, from real ConfigureNotify (outer corner; inner size).
    var x = 0
    /// See `x`.
    var y = 0
    /// See `x`.
    var width = 0
    /// See `x`.
    var height = 0
    /// See `x`.
    var border = 0
    /// Whether the window itself is mapped.
    var isMapped = false
    /// Whether the window bypasses the window manager.
    var overrideRedirect = false
    /// For a client inside a frame: the top-level (frame) it sits in.
    var frame: WindowID?
    /// For a client inside a frame: the offset of its outer corner from the frame's outer corner.
    var offsetInFrame: (x: Int, y: Int)?
    /// For a frame: the client it holds.
    var client: WindowID?
    /// Properties, read once when the window first matters, then kept up to date.
    var description: X11WindowDescription? {
        get { descriptionBox?.value }
        set {
            descriptionBox = newValue.map(Boxed.init)
            isDockType = newValue?.windowTypes.contains("_NET_WM_WINDOW_TYPE_DOCK") ?? false
        }
    }
    /// Whether the description's window types include the dock type.
    private(set) var isDockType = false
    /// The rule the description matches; nil for a window that is no keyboard.
    var rule: KeyboardRule? {
        get { ruleBox?.value }
        set { ruleBox = newValue.map(Boxed.init) }
    }
    /// The rule's keyboard name and kind, read without a copy of the rule.
    var ruleKeyboard: (name: String, kind: KeyboardKind)? { ruleBox.map { ($0.value.name, $0.value.kind) } }
    // The record is copied on every look at a keyboard window; the description and the rule
    // (strings and arrays, changed only with the window's properties) then cost one reference
    // count each, not one per string.
    private var descriptionBox: Boxed<X11WindowDescription>?
    private var ruleBox: Boxed<KeyboardRule>?
    /// Keyboard-only properties, read once the window is known to be a keyboard.
    var keyboard: KeyboardProperties?
    /// Whether this keyboard came up for the app, judged when it showed; nil while hidden.
    var isLocal: Bool?
    /// What had the focus when it showed.
    var focus: FocusedTopLevel?
    /// The keyboard's id (`x11:0x…`), made once the window is first observed as a keyboard.
    var keyboardID: String?

    /// A window seen in `parent`, not yet measured.
    init(parent: WindowID) {
        self.parent = parent
    }

    /// Takes `geometry` as the window's geometry relative to its parent.
    mutating func set(_ geometry: X11Geometry) {
        x = Int(geometry.x)
        y = Int(geometry.y)
        width = Int(geometry.width)
        height = Int(geometry.height)
        border = Int(geometry.border)
    }

    /// Takes `geometry` from a ConfigureNotify; nil when nothing changed, else whether the window
    /// moved, whether it sits in a frame, and the client it frames.
    mutating func configure(_ geometry: X11Geometry) -> (moved: Bool, isFramed: Bool, client: WindowID?)? {
        let moved = Int(geometry.x) != x || Int(geometry.y) != y || Int(geometry.border) != border
        let resized = Int(geometry.width) != width || Int(geometry.height) != height
        guard moved || resized else { return nil }
        set(geometry)
        return (moved, frame != nil, client)
    }
}

/// A value behind one reference, never changed: copies of what holds it share it.
final class Boxed<Value> {
    /// The value.
    let value: Value
    /// Boxes `value`.
    init(_ value: Value) { self.value = value }
}

/// The followed windows of one screen and how they nest.
///
/// Under a reparenting window manager the root window only sees frames: a client window is
/// followed through ReparentNotify, and its absolute position is its frame's position plus its
/// offset inside the frame, measured once per reparent (or when it moves inside the frame), so
/// that moving a frame costs no round trip.
struct WindowTree<Server: WindowServer> {
    /// Where windows are measured and their events asked for.
    let server: Server
    /// The root window: its children are the top-levels.
    let root: WindowID
    /// Every followed window.
    var windows: [WindowID: TrackedWindow] = [:]

    /// An empty tree on `server`'s root.
    init(server: Server) {
        self.server = server
        root = server.root
    }

    /// Follows `window` (asking for its events the first time), now a child of `parent`.
    mutating func follow(_ window: WindowID, parent: WindowID) {
        guard windows[window] == nil else {
            windows[window]?.parent = parent
            return
        }
        windows[window] = TrackedWindow(parent: parent)
        server.selectWindowEvents(window)
    }

    /// Takes the window's mapping, redirection and geometry from the server.
    mutating func refreshAttributes(_ window: WindowID) {
        guard let attributes = server.attributes(window) else { return }
        windows[window]?.isMapped = attributes.isMapped
        windows[window]?.overrideRedirect = attributes.overrideRedirect
        setGeometry(window, attributes.geometry)
    }

    /// Sets the window's geometry relative to its parent.
    mutating func setGeometry(_ window: WindowID, _ geometry: X11Geometry) {
        guard let index = windows.index(forKey: window) else { return }
        windows.values[index].set(geometry)
    }

    /// A ConfigureNotify of `window`: takes its geometry (in place, without copying the window's
    /// record) and says what changed; nil when the window is not followed or nothing changed.
    mutating func configure(_ window: WindowID, _ geometry: X11Geometry) -> (
        moved: Bool, isFramed: Bool, client: WindowID?
    )? {
        guard let index = windows.index(forKey: window) else { return nil }
        return windows.values[index].configure(geometry)
    }

    /// Stops following a destroyed window. Returns the client it framed, which is unframed now.
    mutating func forget(_ window: WindowID) -> WindowID? {
        guard let tracked = windows.removeValue(forKey: window) else { return nil }
        release(client: window, from: tracked.frame)
        guard let client = tracked.client, windows[client]?.frame == window else { return nil }
        windows[client]?.frame = nil
        windows[client]?.offsetInFrame = nil
        return client
    }

    /// `window` was reparented to the root at (`x`, `y`): withdrawn by the window manager (or
    /// never framed), it is a top-level again.
    mutating func unframe(_ window: WindowID, x: Int, y: Int) {
        follow(window, parent: root)
        release(client: window, from: windows[window]?.frame)
        windows[window]?.frame = nil
        windows[window]?.offsetInFrame = nil
        windows[window]?.x = x
        windows[window]?.y = y
    }

    /// Makes `client` the client of `frame` and measures its offset inside.
    mutating func attach(client: WindowID, toFrame frame: WindowID) {
        if let old = windows[client]?.frame, old != frame { release(client: client, from: old) }
        windows[client]?.frame = frame
        windows[frame]?.client = client
        measureOffset(client)
    }

    /// Clears `frame`'s client when that is still `client`.
    private mutating func release(client: WindowID, from frame: WindowID?) {
        if let frame, windows[frame]?.client == client { windows[frame]?.client = nil }
    }

    /// The client's outer corner relative to its frame's outer corner. The position comes from one
    /// request, so it is consistent even while the window manager moves the frame; the borders
    /// (which rarely change) from two more.
    mutating func measureOffset(_ client: WindowID) {
        guard let frame = windows[client]?.frame,
            let inner = server.position(of: client, in: frame),
            let own = server.geometry(of: client),
            let outer = server.geometry(of: frame)
        else {
            windows[client]?.offsetInFrame = nil
            return
        }
        let shift = Int(outer.border) - Int(own.border)
        windows[client]?.offsetInFrame = (Int(inner.x) + shift, Int(inner.y) + shift)
        windows[client]?.border = Int(own.border)
        windows[frame]?.border = Int(outer.border)
    }

    /// The root-level ancestor of `window`, asking the server for parents not followed.
    func topLevel(of window: WindowID) -> WindowID? {
        var current = window
        for _ in 0..<8 {
            if let tracked = windows[current], tracked.parent == root { return current }
            guard let parent = server.tree(of: current)?.parent, parent != 0 else { return nil }
            if parent == root { return current }
            current = parent
        }
        return nil
    }

    /// The client inside a top-level frame, at most `depth` levels down: under a window manager
    /// it is the window with WM_STATE, the topmost one when several have it.
    func findClient(in window: WindowID, depth: Int) -> WindowID? {
        guard depth > 0, let children = server.tree(of: window)?.children else { return nil }
        let wmState = server.atom("WM_STATE")
        for child in children.reversed() where server.property(child, wmState, maxItems: 64) != nil { return child }
        for child in children.reversed() {
            if let found = findClient(in: child, depth: depth - 1) { return found }
        }
        return nil
    }

    /// Whether the window and, for a framed client, its frame are mapped.
    func isMappedWithFrame(_ tracked: TrackedWindow) -> Bool {
        let frameMapped = tracked.frame.map { windows[$0]?.isMapped ?? false } ?? true
        return tracked.isMapped && frameMapped
    }

    /// The client's absolute geometry as `xwininfo -id` reports it: the root position of its outer
    /// corner (border included) and its inner size; nil for a framed client not yet measured.
    func absoluteFrame(_ tracked: TrackedWindow) -> Rect? {
        if tracked.parent == root {
            return Rect(x: tracked.x, y: tracked.y, width: tracked.width, height: tracked.height)
        }
        guard let frame = tracked.frame, let offset = tracked.offsetInFrame, let outer = windows[frame] else {
            return nil
        }
        return Rect(x: outer.x + offset.x, y: outer.y + offset.y, width: tracked.width, height: tracked.height)
    }

    /// The area a client covers on screen, given its own window's absolute frame `window`: inside
    /// a window manager's frame, its window grown by the `extents` the window manager states
    /// (`_NET_FRAME_EXTENTS`), or, where it states none, the frame window's outer rectangle (its
    /// border included); the window itself where no window manager frames it. Extents are taken
    /// only while the client sits in a frame: a window manager that quit leaves them behind.
    func coveredFrame(_ tracked: TrackedWindow, window: Rect, extents: FrameExtents?) -> Rect {
        guard let frame = tracked.frame, let outer = windows[frame] else { return window }
        if let extents {
            let border = 2 * tracked.border
            return Rect(
                x: window.x - extents.left, y: window.y - extents.top,
                width: window.width + border + extents.left + extents.right,
                height: window.height + border + extents.top + extents.bottom)
        }
        return Rect(
            x: outer.x, y: outer.y, width: outer.width + 2 * outer.border, height: outer.height + 2 * outer.border)
    }

    /// Whether the client's frame is big enough to hold it. Window managers animate iconify and
    /// restore by shrinking and moving the frame around the (unchanged) client; while the frame
    /// cannot hold the client, its geometry says nothing about where the keyboard will be.
    func frameHolds(_ tracked: TrackedWindow) -> Bool {
        guard let frame = tracked.frame.flatMap({ windows[$0] }), let offset = tracked.offsetInFrame else {
            return true
        }
        return offset.x >= 0 && offset.y >= 0
            && offset.x + tracked.width + 2 * tracked.border <= frame.width + 2 * frame.border
            && offset.y + tracked.height + 2 * tracked.border <= frame.height + 2 * frame.border
    }
}
