import CX11
import Foundation

/// A second Xlib connection a test or benchmark drives the server with: what xdotool cannot do
/// (matchbox-keyboard's ClientMessage, window storms, configure requests with exact timing).
/// Use it from one thread at a time. It never touches windows it does not own or that may be
/// gone, so it never triggers an X error (the process-wide error hook would pass it to Xlib's
/// default handler, which exits).
public final class XTestClient: @unchecked Sendable {
    /// The `Display *`.
    public let handle: OpaquePointer
    /// The root window.
    public let root: Window

    /// Connects to `display`; nil when the server does not answer.
    public init?(display: String) {
        _ = Self.survivesServerDeath
        guard let opened = XOpenDisplay(display) else { return nil }
        handle = opened
        root = XDefaultRootWindow(opened)
        // Xlib's default exit hook calls exit(): a test that kills its server must not end the
        // test process through a connection that is still open.
        XSetIOErrorExitHandler(opened, { _, _ in }, nil)
    }

    /// Makes a dead server a non-event for test connections: Xlib's default fatal-error handler
    /// exits the process. Installed once; the backend's own connections keep their own handling.
    private static let survivesServerDeath: Void = {
        _ = XSetIOErrorHandler { _ in 0 }
    }()

    /// Connects to `display` or throws.
    public static func connect(_ display: String) throws -> XTestClient {
        guard let client = XTestClient(display: display) else {
            throw TestFailure("cannot connect to X display \(display)")
        }
        return client
    }

    deinit { XCloseDisplay(handle) }

    /// The connection's file descriptor.
    public var fileDescriptor: Int32 { XConnectionNumber(handle) }

    /// An atom.
    public func atom(_ name: String) -> Atom { XInternAtom(handle, name, 0) }

    /// A format-32 property of the root window.
    public func rootCardinals(_ name: String) -> [UInt]? { cardinals(of: root, name) }

    /// A format-32 property of any window (`WM_STATE`: 1 normal, 3 iconic); nil when it has none.
    public func cardinals(of window: Window, _ name: String) -> [UInt]? {
        var type: Atom = 0
        var format: Int32 = 0
        var count: UInt = 0
        var remaining: UInt = 0
        var data: UnsafeMutablePointer<UInt8>?
        guard
            XGetWindowProperty(
                handle, window, atom(name), 0, 64, 0, Atom(AnyPropertyType), &type, &format, &count,
                &remaining, &data) == Success
        else { return nil }
        defer { if let data { XFree(data) } }
        guard let data, format == 32 else { return nil }
        return UnsafeRawPointer(data).withMemoryRebound(to: UInt.self, capacity: Int(count)) {
            Array(UnsafeBufferPointer(start: $0, count: Int(count)))
        }
    }

    /// matchbox-keyboard's remote control (`-d` mode): 1 shows, 2 hides, 3 toggles. The message goes
    /// to the root window, where the keyboard listens.
    public func sendMatchboxCommand(_ command: Int) {
        var event = XEvent()
        event.xclient.type = ClientMessage
        event.xclient.window = root
        event.xclient.message_type = atom("_MB_IM_INVOKER_COMMAND")
        event.xclient.format = 32
        event.xclient.data.l.0 = command
        XSendEvent(handle, root, 0, SubstructureRedirectMask | SubstructureNotifyMask, &event)
        XFlush(handle)
    }

    /// Creates, maps and destroys `count` windows as fast as the connection allows, flushing
    /// every `batch` windows; returns once the server has handled all of them.
    public func churnWindows(count: Int, batch: Int = 50) {
        var pending: [Window] = []
        for index in 0..<count {
            let window = XCreateSimpleWindow(handle, root, Int32(index % 900), Int32(index % 600), 40, 30, 0, 0, 0)
            XMapWindow(handle, window)
            pending.append(window)
            if pending.count == batch {
                for window in pending { XDestroyWindow(handle, window) }
                pending.removeAll()
                XFlush(handle)
            }
        }
        for window in pending { XDestroyWindow(handle, window) }
        XSync(handle, 0)
    }

    /// Creates and maps a top-level window with raw WM_CLASS and title bytes (which need not be
    /// valid text), and returns its id once the server has it.
    public func createWindow(
        x: Int, y: Int, width: Int, height: Int, classBytes: [UInt8], titleBytes: [UInt8],
        overrideRedirect: Bool = false
    ) -> Window {
        var attributes = XSetWindowAttributes()
        attributes.override_redirect = overrideRedirect ? 1 : 0
        let window = XCreateWindow(
            handle, root, Int32(x), Int32(y), UInt32(width), UInt32(height), 0, 0,
            UInt32(InputOutput), nil, UInt(CWOverrideRedirect), &attributes)
        setProperty(window, "WM_CLASS", type: Atom(XA_STRING), classBytes)
        setProperty(window, "_NET_WM_NAME", type: atom("UTF8_STRING"), titleBytes)
        setProperty(window, "WM_NAME", type: Atom(XA_STRING), titleBytes)
        XMapWindow(handle, window)
        XSync(handle, 0)
        return window
    }

    /// Replaces a format-8 property with raw bytes.
    public func setProperty(_ window: Window, _ name: String, type: Atom, _ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { buffer in
            _ = XChangeProperty(
                handle, window, atom(name), type, 8, PropModeReplace, buffer.baseAddress,
                Int32(buffer.count))
        }
    }

    /// Replaces a format-32 CARDINAL property (such as `_NET_WM_PID`).
    public func setCardinals(_ window: Window, _ name: String, _ values: [UInt]) {
        values.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: UInt8.self) { bytes in
                _ = XChangeProperty(
                    handle, window, atom(name), Atom(XA_CARDINAL), 32, PropModeReplace,
                    bytes.baseAddress, Int32(values.count))
            }
        }
        XSync(handle, 0)
    }

    /// Replaces a format-32 property with `values` of the given type (ATOM lists, say), without
    /// waiting for the server.
    public func setValues(_ window: Window, _ name: String, type: Atom, _ values: [UInt]) {
        values.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: UInt8.self) { bytes in
                _ = XChangeProperty(
                    handle, window, atom(name), type, 32, PropModeReplace, bytes.baseAddress, Int32(values.count))
            }
        }
    }

    /// Destroys a window this connection created.
    public func destroy(_ window: Window) {
        XDestroyWindow(handle, window)
        XSync(handle, 0)
    }

    /// Asks for `window` to be moved and resized (a configure request, like an app or xdotool),
    /// and sends it at once.
    public func configure(_ window: Window, x: Int, y: Int, width: Int? = nil, height: Int? = nil) {
        if let width, let height {
            XMoveResizeWindow(handle, window, Int32(x), Int32(y), UInt32(width), UInt32(height))
        } else {
            XMoveWindow(handle, window, Int32(x), Int32(y))
        }
        XFlush(handle)
    }

    /// Whether a window manager reparents new windows: maps a small probe window, waits up to
    /// `timeout` seconds for it to be framed, then destroys it. A window manager that has just
    /// claimed the screen may not be serving map requests yet; this proves that it is.
    public func windowManagerFramesWindows(timeout: Double) -> Bool {
        let probe = XCreateSimpleWindow(handle, root, 0, 0, 10, 10, 0, 0, 0)
        XMapWindow(handle, probe)
        XSync(handle, 0)
        defer {
            XDestroyWindow(handle, probe)
            XSync(handle, 0)
        }
        return Wait.until(timeout: timeout, interval: 0.01) {
            var rootReturn: Window = 0
            var parent: Window = 0
            var children: UnsafeMutablePointer<Window>?
            var count: UInt32 = 0
            guard XQueryTree(handle, probe, &rootReturn, &parent, &children, &count) != 0 else { return false }
            if let children { XFree(children) }
            return parent != root
        }
    }

    /// Sends buffered requests and waits until the server has handled them.
    public func sync() { XSync(handle, 0) }

    /// Selects events on the root window (for a listener that compares itself with the backend).
    public func selectRootEvents(_ mask: Int) {
        XSelectInput(handle, root, mask)
        XFlush(handle)
    }

    /// Pending events, without blocking.
    public func pending() -> Int32 { XPending(handle) }

    /// The next event; call after `pending()` says there is one.
    public func nextEvent() -> XEvent {
        var event = XEvent()
        XNextEvent(handle, &event)
        return event
    }
}
