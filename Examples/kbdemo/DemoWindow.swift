import CXft
import Foundation

/// What one frame of the window shows.
struct Scene {
    /// The heading.
    var title: String
    /// Body text, one line each.
    var body: [String]
    /// Status lines under the body (keyboard, window, inset).
    var status: [String]
    /// The y of the input bar's first row, in window pixels.
    var barTop: Int
}

/// The window: the X connection, the top-level window, its back buffer and the fonts and colours
/// text is drawn with. The one owner of every X resource the app holds; `close()` frees them all.
final class DemoWindow {
    /// The `Display *`.
    let display: OpaquePointer
    /// The top-level window.
    let window: Window
    /// The root window.
    let root: Window
    /// `WM_PROTOCOLS` and `WM_DELETE_WINDOW`, to recognise the window manager's close request.
    let wmProtocols: Atom, wmDeleteWindow: Atom
    /// The window's inner size, as last configured.
    private(set) var width: Int, height: Int

    private let screen: Int32
    private let visual: UnsafeMutablePointer<Visual>
    private let colormap: Colormap
    private let depth: UInt32
    private var backBuffer: Pixmap
    private let draw: OpaquePointer
    private let gc: GC
    private let titleFont: UnsafeMutablePointer<XftFont>
    private let bodyFont: UnsafeMutablePointer<XftFont>
    private var colors: [UInt32: XftColor] = [:]
    private var isClosed = false

    /// Connects to `$DISPLAY` and creates (without mapping) a `width`×`height` window titled
    /// `title`, at `position` when given (as a user-specified position the window manager honours).
    init(title: String, width: Int, height: Int, position: (x: Int, y: Int)?) throws {
        guard let display = XOpenDisplay(nil) else {
            let name = getenv("DISPLAY").map { String(cString: $0) } ?? ""
            throw DemoError(name.isEmpty ? "DISPLAY is not set" : "cannot open X display \(name)")
        }
        self.display = display
        XConnectionBroken.install(on: display)
        screen = XDefaultScreen(display)
        root = XRootWindow(display, screen)
        visual = XDefaultVisual(display, screen)
        colormap = XDefaultColormap(display, screen)
        depth = UInt32(XDefaultDepth(display, screen))
        self.width = width
        self.height = height

        window = XCreateSimpleWindow(
            display, root, Int32(position?.x ?? 0), Int32(position?.y ?? 0),
            UInt32(width), UInt32(height), 0, XBlackPixel(display, screen),
            XWhitePixel(display, screen))
        // Every pixel comes from the back buffer: no background means no flash of white when
        // the server exposes or resizes the window.
        XSetWindowBackgroundPixmap(display, window, Pixmap(None))
        // The pointer too: the first button's presses, drags and releases dismiss the keyboard.
        XSelectInput(
            display, window,
            ExposureMask | StructureNotifyMask | ButtonPressMask | ButtonReleaseMask | Button1MotionMask)
        wmProtocols = XInternAtom(display, "WM_PROTOCOLS", 0)
        wmDeleteWindow = XInternAtom(display, "WM_DELETE_WINDOW", 0)

        backBuffer = XCreatePixmap(display, window, UInt32(width), UInt32(height), depth)
        gc = XCreateGC(display, backBuffer, 0, nil)
        guard let draw = XftDrawCreate(display, backBuffer, visual, colormap) else {
            XCloseDisplay(display)
            throw DemoError("XftDrawCreate failed")
        }
        self.draw = draw
        guard let titleFont = XftFontOpenName(display, screen, "DejaVu Sans:bold:pixelsize=22"),
            let bodyFont = XftFontOpenName(display, screen, "DejaVu Sans:pixelsize=15")
        else {
            XCloseDisplay(display)
            throw DemoError("no font found (install fonts-dejavu-core)")
        }
        self.titleFont = titleFont
        self.bodyFont = bodyFont
        setProperties(title: title, position: position)
    }

    deinit { close() }

    /// Window-manager properties: the title (also as UTF-8), class, size hints, the close
    /// protocol, input focus and the process id.
    private func setProperties(title: String, position: (x: Int, y: Int)?) {
        XStoreName(display, window, title)
        let utf8 = XInternAtom(display, "UTF8_STRING", 0)
        let titleBytes = Array(title.utf8)
        XChangeProperty(
            display, window, XInternAtom(display, "_NET_WM_NAME", 0), utf8, 8, PropModeReplace,
            titleBytes, Int32(titleBytes.count))
        let pid = [UInt(getpid())]
        pid.withUnsafeBytes { bytes in
            _ = XChangeProperty(
                display, window, XInternAtom(display, "_NET_WM_PID", 0), XA_CARDINAL, 32,
                PropModeReplace, bytes.bindMemory(to: UInt8.self).baseAddress, 1)
        }
        if let hints = XAllocClassHint() {
            let name = strdup("kbdemo")
            let className = strdup("Kbdemo")
            hints.pointee.res_name = name
            hints.pointee.res_class = className
            XSetClassHint(display, window, hints)
            free(name)
            free(className)
            XFree(hints)
        }
        if let hints = XAllocSizeHints() {
            hints.pointee.flags = PSize | PMinSize | (position == nil ? 0 : USPosition | PPosition)
            hints.pointee.x = Int32(position?.x ?? 0)
            hints.pointee.y = Int32(position?.y ?? 0)
            hints.pointee.width = Int32(width)
            hints.pointee.height = Int32(height)
            hints.pointee.min_width = 240
            hints.pointee.min_height = 160
            XSetWMNormalHints(display, window, hints)
            XFree(hints)
        }
        if let hints = XAllocWMHints() {
            hints.pointee.flags = InputHint | StateHint
            hints.pointee.input = 1
            hints.pointee.initial_state = NormalState
            XSetWMHints(display, window, hints)
            XFree(hints)
        }
        var protocols = [wmDeleteWindow]
        XSetWMProtocols(display, window, &protocols, 1)
    }

    /// Maps the window and sends every request.
    func show() {
        XMapWindow(display, window)
        XFlush(display)
    }

    /// The connection's file descriptor, for poll().
    var fileDescriptor: Int32 { XConnectionNumber(display) }

    /// Takes a new inner size; the back buffer follows. Returns true when the size changed.
    func resize(width: Int, height: Int) -> Bool {
        let width = max(1, width)
        let height = max(1, height)
        guard width != self.width || height != self.height else { return false }
        self.width = width
        self.height = height
        let old = backBuffer
        backBuffer = XCreatePixmap(display, window, UInt32(width), UInt32(height), depth)
        XftDrawChange(draw, backBuffer)
        XFreePixmap(display, old)
        return true
    }

    /// The window's inner top-left corner in root coordinates, asked of the server (a round trip).
    func positionOnScreen() -> (x: Int, y: Int)? {
        var x: Int32 = 0
        var y: Int32 = 0
        var child: Window = 0
        guard XTranslateCoordinates(display, window, root, 0, 0, &x, &y, &child) != 0 else { return nil }
        return (Int(x), Int(y))
    }

    /// Draws `scene` into the back buffer, then copies it to the window in one request.
    func render(_ scene: Scene) {
        fill(Palette.background, x: 0, y: 0, width: width, height: height)
        var y = 44
        text(scene.title, font: titleFont, color: Palette.text, x: 24, y: y)
        fill(Palette.rule, x: 24, y: y + 14, width: max(0, width - 48), height: 1)
        y += 50
        for line in scene.body {
            text(line, font: bodyFont, color: Palette.text, x: 24, y: y)
            y += 24
        }
        y += 16
        for line in scene.status {
            text(line, font: bodyFont, color: Palette.secondaryText, x: 24, y: y)
            y += 24
        }
        drawBar(top: scene.barTop)
        XCopyArea(display, backBuffer, window, gc, 0, 0, UInt32(width), UInt32(height), 0, 0)
    }

    /// The input bar: a band of the bar colour, edge to edge, holding a white text field.
    private func drawBar(top: Int) {
        let margin = BarMetrics.fieldMargin
        fill(Palette.bar, x: 0, y: top, width: width, height: BarMetrics.height)
        let inset = BarMetrics.fieldInset
        fill(
            Palette.field, x: margin, y: top + inset, width: max(0, width - 2 * margin),
            height: BarMetrics.height - 2 * inset)
        text("Type a message…", font: bodyFont, color: Palette.placeholder, x: margin + 12, y: top + 30)
    }

    private func fill(_ rgb: UInt32, x: Int, y: Int, width: Int, height: Int) {
        guard width > 0, height > 0 else { return }
        XSetForeground(display, gc, color(rgb).pixel)
        XFillRectangle(display, backBuffer, gc, Int32(x), Int32(y), UInt32(width), UInt32(height))
    }

    private func text(_ string: String, font: UnsafeMutablePointer<XftFont>, color rgb: UInt32, x: Int, y: Int) {
        var xftColor = color(rgb)
        let bytes = Array(string.utf8)
        XftDrawStringUtf8(draw, &xftColor, font, Int32(x), Int32(y), bytes, Int32(bytes.count))
    }

    /// An allocated colour for `0xRRGGBB` (its pixel value serves the GC too, on any visual).
    private func color(_ rgb: UInt32) -> XftColor {
        if let known = colors[rgb] { return known }
        var render = XRenderColor(
            red: UInt16(rgb >> 16 & 0xFF) * 257, green: UInt16(rgb >> 8 & 0xFF) * 257,
            blue: UInt16(rgb & 0xFF) * 257, alpha: 0xFFFF)
        var allocated = XftColor()
        if XftColorAllocValue(display, visual, colormap, &render, &allocated) == 0 {
            allocated.pixel = UInt(rgb)
        }
        colors[rgb] = allocated
        return allocated
    }

    /// Frees every resource and closes the connection. Idempotent; after a broken connection
    /// only the client-side memory is released.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        for var color in colors.values { XftColorFree(display, visual, colormap, &color) }
        XftFontClose(display, titleFont)
        XftFontClose(display, bodyFont)
        XftDrawDestroy(draw)
        XFreeGC(display, gc)
        XFreePixmap(display, backBuffer)
        XDestroyWindow(display, window)
        XCloseDisplay(display)
    }
}
