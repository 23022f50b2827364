import CX11
import CX11Loader
import CXrandr
import Glibc
import KeyboardBackendInterface
import Synchronization

/// Why a connection to an X server could not be opened.
struct XDisplayError: Error, Sendable, CustomStringConvertible {
    var description: String
}

/// Whether a connection broke. Shared with Xlib's C callbacks, which cannot capture context,
/// through a process-wide table keyed by the `Display` address.
final class XConnectionHealth: Sendable {
    /// Set once Xlib reported a fatal I/O error: the server is gone.
    let isBroken = Atomic<Bool>(false)
}

/// Xlib's error hooks are process-wide. They are installed once; errors on connections this module
/// opened are handled here, errors on anybody else's connections go to the handler that was there
/// before, so an app that uses Xlib itself keeps its behaviour.
private enum XErrorHooks {
    struct Previous: @unchecked Sendable {
        // C function pointers are plain values; the wrapper only exists because the imported
        // optional function-pointer types are not marked Sendable.
        var error: XErrorHandler?
        var io: XIOErrorHandler?
    }

    /// Connections of this module, by `Display` address.
    static let connections = Mutex<[UInt: XConnectionHealth]>([:])
    static let previous = Mutex<Previous>(Previous())

    static func health(_ display: OpaquePointer?) -> XConnectionHealth? {
        guard let display else { return nil }
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(display)))
        return connections.withLock { $0[key] }
    }

    /// Installs the hooks the first time it is read; Swift runs a static initialiser exactly once.
    static let installed: Void = {
        let errorHandler: XErrorHandler = { display, event in
            // Protocol errors on this module's connections are normal (a window vanished between
            // an event and a query; the call then returns failure) and are dropped.
            if XErrorHooks.health(display) != nil { return 0 }
            return XErrorHooks.previous.withLock { $0.error }.map { $0(display, event) } ?? 0
        }
        let ioHandler: XIOErrorHandler = { display in
            if let health = XErrorHooks.health(display) {
                // Returning lets Xlib go on to the per-connection exit handler, which returns too.
                health.isBroken.store(true, ordering: .releasing)
                return 0
            }
            return XErrorHooks.previous.withLock { $0.io }.map { $0(display) } ?? 0
        }
        // Read only after a connection was opened: the libraries are loaded.
        guard let xlib = ka_x11_library()?.pointee else { return }
        let oldError = xlib.XSetErrorHandler(errorHandler)
        let oldIO = xlib.XSetIOErrorHandler(ioHandler)
        previous.withLock { $0 = Previous(error: oldError, io: oldIO) }
    }()
}

/// The one owner of an Xlib connection, and the only place the X11 backend calls Xlib. Used from
/// one thread at a time (the backend's thread); every Xlib allocation it receives is freed here.
///
/// The X libraries are loaded when the first connection is opened, and called through `xlib`, the
/// table of their loaded functions: the package defines none of them, so a process that links
/// libX11 itself (an Xlib or GTK app) and everything in it keeps calling libX11's own.
final class XDisplay {
    /// The loaded libX11 and libXrandr functions.
    private let xlib: ka_x11_library
    /// The underlying `Display *`.
    private let handle: OpaquePointer
    /// The display name the connection went to, such as `:1`.
    let name: String
    /// The root window of the default screen.
    let root: Window
    /// What the connection has suffered.
    let health = XConnectionHealth()
    private var atoms: [String: Atom] = [:]
    private var atomNames: [Atom: String] = [:]
    /// Atoms the server does not know (XGetAtomName failed): asked once, not once per event, since
    /// any client can put unknown atoms in its properties and each question is a round trip.
    /// Bounded: a client inventing atoms without end costs memory up to this many, then starts over.
    private var unknownAtoms: Set<Atom> = []
    private static let unknownAtomLimit = 1 << 16
    private var isClosed = false
    /// A retained pointer to `health`, handed to Xlib's per-connection exit hook.
    private let exitContext: Unmanaged<XConnectionHealth>

    /// Connects to `name`, or to `$DISPLAY` when nil.
    init(name: String?) throws(XDisplayError) {
        guard let xlib = ka_x11_library()?.pointee else {
            let failure = ka_x11_library_failure().map { String(cString: $0) } ?? "unknown reason"
            throw XDisplayError(description: "cannot load the X libraries: " + failure)
        }
        self.xlib = xlib
        _ = XErrorHooks.installed
        let shown = name ?? (getenv("DISPLAY").map { String(cString: $0) } ?? "")
        guard let opened = Self.open(shown, xlib) else {
            throw XDisplayError(description: shown.isEmpty ? "DISPLAY is not set" : "cannot open X display \(shown)")
        }
        handle = opened
        self.name = xlib.XDisplayString(opened).map { String(cString: $0) } ?? shown
        root = xlib.XDefaultRootWindow(opened)
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(opened)))
        XErrorHooks.connections.withLock { [health] in $0[key] = health }
        exitContext = Unmanaged.passRetained(health)
        // The default exit hook calls exit(); this one records the break and returns, so the
        // failing Xlib call unwinds and the backend's loop ends on its own.
        xlib.XSetIOErrorExitHandler(
            opened,
            { _, context in
                guard let context else { return }
                Unmanaged<XConnectionHealth>.fromOpaque(context).takeUnretainedValue()
                    .isBroken.store(true, ordering: .releasing)
            }, exitContext.toOpaque())
    }

    deinit { close() }

    /// Opens a connection to `name`. A fresh X server resets when its last client disconnects,
    /// and a connection attempted during the reset fails; so when the server's socket exists, a
    /// failed attempt is retried for about a second with a short backoff before giving up. A
    /// display with no socket fails at once.
    private static func open(_ name: String, _ xlib: ka_x11_library) -> OpaquePointer? {
        if let opened = xlib.XOpenDisplay(name.isEmpty ? nil : name) { return opened }
        guard let socket = localSocketPath(name), access(socket, F_OK) == 0 else { return nil }
        var delay: UInt32 = 5_000
        var waited: UInt32 = 0
        while waited < 1_000_000 {
            usleep(delay)
            waited += delay
            delay = min(delay * 2, 100_000)
            if let opened = xlib.XOpenDisplay(name) { return opened }
        }
        return nil
    }

    /// The Unix socket of a local display name (`:1`, `:1.0`, `unix:1`), nil for a remote one.
    static func localSocketPath(_ name: String) -> String? {
        guard let colon = name.lastIndex(of: ":") else { return nil }
        let host = name[..<colon]
        guard host.isEmpty || host == "unix" else { return nil }
        let number = name[name.index(after: colon)...].prefix { $0 != "." }
        guard !number.isEmpty, number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber) else { return nil }
        return "/tmp/.X11-unix/X" + number
    }

    /// Closes the connection (also a broken one) and forgets it in the error hooks.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle)))
        _ = xlib.XCloseDisplay(handle)
        // Another thread may already have opened a connection at the freed address: only this
        // connection's own entry is removed, never the newcomer's.
        XErrorHooks.connections.withLock { [health] connections in
            if connections[key] === health { connections.removeValue(forKey: key) }
        }
        exitContext.release()
    }

    /// True once the server connection broke.
    var isBroken: Bool { health.isBroken.load(ordering: .acquiring) }

    /// The connection's file descriptor, for `poll()`.
    var fileDescriptor: Int32 { xlib.XConnectionNumber(handle) }

    /// The size of the default screen, in pixels.
    var screenSize: (width: Int, height: Int) {
        let screen = xlib.XDefaultScreen(handle)
        return (Int(xlib.XDisplayWidth(handle, screen)), Int(xlib.XDisplayHeight(handle, screen)))
    }

    // MARK: Events

    /// Asks for the events in `mask` on `window`. Errors (a window already gone) arrive later and
    /// are swallowed by the error hook.
    func selectInput(_ window: Window, _ mask: Int) {
        _ = xlib.XSelectInput(handle, window, mask)
    }

    /// Sends buffered requests, reads what the socket has without blocking, and returns the
    /// number of events in Xlib's queue. With events already queued it returns their number
    /// without reading; with none, it reads until the socket is empty.
    func pendingEvents() -> Int32 { isBroken ? 0 : xlib.XPending(handle) }

    /// The number of events in Xlib's queue, without sending or reading anything.
    func queuedEvents() -> Int32 { isBroken ? 0 : xlib.XEventsQueued(handle, QueuedAlready) }

    /// Changes whenever a request is made on the connection, through Xlib (its next request's
    /// sequence number) or through xcb directly (libxkbcommon-x11's reads). While it stays the
    /// same, nothing was sent and no reply was waited for, so nothing can have been read from the
    /// socket into a queue where `poll()` cannot see it.
    var requestMark: UInt64 { UInt64(xlib.XNextRequest(handle)) &+ xcbRequests }

    /// How many times libxkbcommon-x11 was handed the connection (see `requestMark`).
    private var xcbRequests: UInt64 = 0

    /// The next queued event; call only after `pendingEvents()` said there is one.
    func nextEvent() -> XEvent {
        var event = XEvent()
        _ = xlib.XNextEvent(handle, &event)
        return event
    }

    /// Sends buffered requests.
    func flush() { _ = xlib.XFlush(handle) }

    // MARK: Atoms

    /// The atoms every start of the backend asks for: the followed properties, the active window
    /// and the layout names.
    static let startAtoms =
        FollowedProperties.describing + FollowedProperties.keyboard + [
            "_NET_ACTIVE_WINDOW", "_XKB_RULES_NAMES",
        ]

    /// Interns `names` in one round trip (XInternAtoms) rather than one each, for `atom(_:)`.
    func internAtoms(_ names: [String]) {
        let missing = names.filter { atoms[$0] == nil }
        guard !missing.isEmpty, !isBroken else { return }
        var cNames = missing.map { strdup($0) }
        defer { cNames.forEach { free($0) } }
        var values = [Atom](repeating: 0, count: missing.count)
        guard xlib.XInternAtoms(handle, &cNames, Int32(missing.count), 0, &values) != 0 else { return }
        for (name, value) in zip(missing, values) where value != 0 {
            atoms[name] = value
            atomNames[value] = name
        }
    }

    /// The atom for `name`, interned once per connection.
    func atom(_ name: String) -> Atom {
        if let known = atoms[name] { return known }
        let value = xlib.XInternAtom(handle, name, 0)
        atoms[name] = value
        atomNames[value] = name
        return value
    }

    /// The name of `atom`, asked once per connection (atoms live as long as the server).
    func atomName(_ atom: Atom) -> String? {
        if let known = atomNames[atom] { return known }
        guard atom != 0, !unknownAtoms.contains(atom) else { return nil }
        guard let raw = xlib.XGetAtomName(handle, atom) else {
            if unknownAtoms.count >= Self.unknownAtomLimit { unknownAtoms.removeAll() }
            unknownAtoms.insert(atom)
            return nil
        }
        defer { _ = xlib.XFree(raw) }
        let name = String(decoding: UnsafeRawBufferPointer(start: raw, count: strlen(raw)), as: UTF8.self)
        atomNames[atom] = name
        atoms[name] = atom
        return name
    }

    // MARK: Properties

    /// Reads a property, at most `maxItems` 32-bit units of it; nil when absent or the window is
    /// gone. Any client can write any property of its windows, as large as it likes: reads are
    /// bounded so that a window that is no keyboard costs next to nothing. The default fits every
    /// property read for tracking (WM_HINTS is 9 items, struts 12).
    func property(_ window: Window, _ property: Atom, maxItems: Int = 64) -> XProperty? {
        var type: Atom = 0
        var format: Int32 = 0
        var count: UInt = 0
        var remaining: UInt = 0
        var data: UnsafeMutablePointer<UInt8>?
        let status = xlib.XGetWindowProperty(
            handle, window, property, 0, maxItems, 0, Atom(AnyPropertyType), &type, &format, &count, &remaining, &data)
        defer { if let data { _ = xlib.XFree(data) } }
        guard status == Success, type != 0, let data else { return nil }
        let n = Int(count)
        switch format {
        case 8:
            return XProperty(
                type: type, format: 8, bytes: Array(UnsafeBufferPointer(start: data, count: n)), values: [])
        case 16:
            let values = UnsafeRawPointer(data).withMemoryRebound(to: UInt16.self, capacity: n) {
                UnsafeBufferPointer(start: $0, count: n).map { UInt($0) }
            }
            return XProperty(type: type, format: 16, bytes: [], values: values)
        case 32:
            // Xlib hands format-32 items back as C longs, whatever their width on the wire.
            let values = UnsafeRawPointer(data).withMemoryRebound(to: UInt.self, capacity: n) {
                Array(UnsafeBufferPointer(start: $0, count: n))
            }
            return XProperty(type: type, format: 32, bytes: [], values: values)
        default:
            return nil
        }
    }

    // MARK: Windows

    /// The window's attributes; nil when it is gone.
    func attributes(_ window: Window) -> WindowAttributes? {
        var raw = XWindowAttributes()
        guard xlib.XGetWindowAttributes(handle, window, &raw) != 0 else { return nil }
        return WindowAttributes(
            geometry: X11Geometry(
                x: raw.x, y: raw.y, width: raw.width, height: raw.height, border: raw.border_width),
            isMapped: raw.map_state != IsUnmapped, overrideRedirect: raw.override_redirect != 0)
    }

    /// Where `window`'s inner top-left corner (inside its border) is in `ancestor`'s inner
    /// coordinates, in one request; nil when either is gone.
    func position(of window: Window, in ancestor: Window) -> (x: Int32, y: Int32)? {
        var x: Int32 = 0
        var y: Int32 = 0
        var child: Window = 0
        guard xlib.XTranslateCoordinates(handle, window, ancestor, 0, 0, &x, &y, &child) != 0 else { return nil }
        return (x, y)
    }

    /// The window's geometry from the server: outer position relative to its parent, inner size
    /// and border width; nil when it is gone.
    func geometry(of window: Window) -> X11Geometry? {
        var rootReturn: Window = 0
        var x: Int32 = 0
        var y: Int32 = 0
        var width: UInt32 = 0
        var height: UInt32 = 0
        var border: UInt32 = 0
        var depth: UInt32 = 0
        guard xlib.XGetGeometry(handle, window, &rootReturn, &x, &y, &width, &height, &border, &depth) != 0 else {
            return nil
        }
        // The server's sizes are 16-bit: they always fit.
        return X11Geometry(
            x: x, y: y, width: Int32(clamping: width), height: Int32(clamping: height), border: Int32(clamping: border))
    }

    /// The window that has the X input focus (may be None, PointerRoot or a child window).
    func inputFocus() -> Window? {
        var focus: Window = 0
        var revert: Int32 = 0
        _ = xlib.XGetInputFocus(handle, &focus, &revert)
        return isBroken ? nil : focus
    }

    /// XKB's event code on this connection, once XKB's events are asked for: every XKB event has
    /// this type.
    private(set) var xkbEventCode: Int32?

    // MARK: Monitors (RandR)

    /// RandR's first event code, once asked; nil when the server has no RandR.
    private lazy var randrEventBase: Int32? = {
        var eventBase: Int32 = 0
        var errorBase: Int32 = 0
        return xlib.XRRQueryExtension(handle, &eventBase, &errorBase) != 0 ? eventBase : nil
    }()

    /// Asks for RandR's screen, CRTC and output change events on the root window.
    func selectMonitorChanges() {
        guard randrEventBase != nil else { return }
        xlib.XRRSelectInput(
            handle, root, Int32(RRScreenChangeNotifyMask | RRCrtcChangeNotifyMask | RROutputChangeNotifyMask))
    }

    /// True for a RandR event; lets Xlib update its idea of the screen size first.
    func isMonitorChange(_ event: inout XEvent) -> Bool {
        guard let base = randrEventBase else { return false }
        if event.type == base + RRScreenChangeNotify {
            _ = xlib.XRRUpdateConfiguration(&event)
            return true
        }
        return event.type == base + RRNotify
    }

    /// The active RandR monitors, named as `xrandr --listmonitors` names them; empty without RandR.
    func monitors() -> [Output] {
        guard randrEventBase != nil else { return [] }
        var count: Int32 = 0
        guard let list = xlib.XRRGetMonitors(handle, root, 1, &count) else { return [] }
        defer { xlib.XRRFreeMonitors(list) }
        return (0..<Int(max(0, count))).map { index in
            let monitor = list[index]
            return Output(
                name: atomName(monitor.name) ?? "monitor-\(index)",
                frame: Rect(
                    x: Int(monitor.x), y: Int(monitor.y), width: Int(monitor.width),
                    height: Int(monitor.height)))
        }
    }

    /// Whether the server tells which process a client is (X-Resource 1.2), asked once.
    private lazy var knowsClientProcesses: Bool = ka_x11_knows_client_processes(handle) != 0

    /// The process of the client that created `window`, as the server knows it from the
    /// connection (X-Resource); nil when it cannot tell: a remote client, an older server, the
    /// window gone. Unlike `_NET_WM_PID`, which any client may write, no client can set this.
    func clientProcess(of window: Window) -> Int32? {
        guard knowsClientProcesses, !isBroken else { return nil }
        let pid = ka_x11_window_process(handle, window)
        return pid > 0 ? pid : nil
    }

    /// Asks the window manager to iconify `window` (ICCCM WM_CHANGE_STATE) and sends the request.
    func requestIconify(_ window: Window) -> Bool {
        let status = xlib.XIconifyWindow(handle, window, xlib.XDefaultScreen(handle))
        _ = xlib.XFlush(handle)
        return status != 0 && !isBroken
    }

    /// The window manager's name (`_NET_SUPPORTING_WM_CHECK`, then its `_NET_WM_NAME`); nil when
    /// no EWMH window manager runs.
    var windowManagerName: String? {
        guard let check = values(root, "_NET_SUPPORTING_WM_CHECK")?.first, check != 0 else { return nil }
        return text(Window(check), "_NET_WM_NAME") ?? ""
    }

    /// The window's parent and children (bottom to top); nil when it is gone.
    func tree(of window: Window) -> (parent: Window, children: [Window])? {
        var rootReturn: Window = 0
        var parent: Window = 0
        var children: UnsafeMutablePointer<Window>?
        var count: UInt32 = 0
        guard xlib.XQueryTree(handle, window, &rootReturn, &parent, &children, &count) != 0 else { return nil }
        defer { if let children { _ = xlib.XFree(children) } }
        let list = children.map { Array(UnsafeBufferPointer(start: $0, count: Int(count))) } ?? []
        return (parent, list)
    }
}

// MARK: Keyboard layouts (XKB, read through libxkbcommon-x11 on this same connection)

extension XDisplay {
    /// Asks for XKB's new-keyboard, keymap and group events; returns the core keyboard's device id
    /// and XKB's event code, or nil when the server has no usable XKB.
    func selectKeyboardLayoutChanges() -> (device: Int32, eventCode: Int32)? {
        var eventCode: Int32 = 0
        xcbRequests &+= 1
        let device = ka_xkb_setup(handle, &eventCode)
        guard device >= 0, !isBroken else { return nil }
        xkbEventCode = eventCode
        return (device, eventCode)
    }

    /// The core keyboard's keymap (an `xkb_keymap`, owned by the caller), or nil.
    func keyboardKeymap(context: OpaquePointer, device: Int32) -> OpaquePointer? {
        xcbRequests &+= 1
        return isBroken ? nil : ka_xkb_keymap(context, handle, device)
    }

    /// The core keyboard's current state (an `xkb_state`, owned by the caller), or nil.
    func keyboardState(keymap: OpaquePointer, device: Int32) -> OpaquePointer? {
        xcbRequests &+= 1
        return isBroken ? nil : ka_xkb_state(keymap, handle, device)
    }
}
