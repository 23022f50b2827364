import CX11

/// Reads what an X server shows: the root window's pixels through `XGetImage`, which is what a
/// person sees on a server without a compositor (Xvfb), windows stacked as they are.
public final class ScreenGrabber {
    /// Why a capture failed.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public var description: String
    }

    private var display: OpaquePointer?
    private let root: Window

    /// Connects to `displayName` (nil: `$DISPLAY`).
    public init(displayName: String? = nil) throws {
        guard let display = XOpenDisplay(displayName) else {
            throw Failure(description: "cannot open X display \(displayName ?? "$DISPLAY")")
        }
        self.display = display
        root = XDefaultRootWindow(display)
    }

    deinit { close() }

    /// Closes the connection. Call it before the server goes away: closing a connection to a
    /// server that is gone is an I/O error, and Xlib's default handler for that exits the process.
    public func close() {
        if let display { XCloseDisplay(display) }
        display = nil
    }

    private func connection() throws -> OpaquePointer {
        guard let display else { throw Failure(description: "the connection is closed") }
        return display
    }

    /// The root window's size.
    public var screenSize: (width: Int, height: Int) {
        guard let display else { return (0, 0) }
        let screen = XDefaultScreen(display)
        return (Int(XDisplayWidth(display, screen)), Int(XDisplayHeight(display, screen)))
    }

    /// Captures the whole screen.
    public func capture() throws -> RGBImage {
        let size = screenSize
        return try capture(x: 0, y: 0, width: size.width, height: size.height)
    }

    /// Captures a rectangle of the screen, in root coordinates (it must lie inside the screen).
    public func capture(x: Int, y: Int, width: Int, height: Int) throws -> RGBImage {
        let display = try connection()
        XSync(display, 0)
        guard width > 0, height > 0,
            let image = XGetImage(display, root, Int32(x), Int32(y), UInt32(width), UInt32(height), ~0, ZPixmap)
        else { throw Failure(description: "XGetImage of \(width)x\(height)+\(x)+\(y) failed") }
        defer { _ = image.pointee.f.destroy_image(image) }
        return try convert(image.pointee, width: width, height: height, getPixel: image)
    }

    /// Turns the server's pixel format into RGB. 24-bit TrueColor in 32-bit pixels (every Xvfb
    /// `WxHx24` screen) is read directly; anything else goes through Xlib's per-pixel accessor.
    private func convert(
        _ image: XImage, width: Int, height: Int,
        getPixel handle: UnsafeMutablePointer<XImage>
    ) throws -> RGBImage {
        let masks = (image.red_mask, image.green_mask, image.blue_mask)
        var out = [UInt8](repeating: 0, count: width * height * 3)
        if image.bits_per_pixel == 32, masks == (0xFF0000, 0xFF00, 0xFF), image.byte_order == LSBFirst,
            let data = image.data
        {
            let stride = Int(image.bytes_per_line)
            data.withMemoryRebound(to: UInt8.self, capacity: stride * height) { src in
                for row in 0..<height {
                    for col in 0..<width {
                        let s = row * stride + col * 4
                        let d = (row * width + col) * 3
                        out[d] = src[s + 2]
                        out[d + 1] = src[s + 1]
                        out[d + 2] = src[s]
                    }
                }
            }
        } else {
            guard let getPixel = image.f.get_pixel else { throw Failure(description: "XImage without get_pixel") }
            let shifts = [masks.0, masks.1, masks.2].map { UInt($0).trailingZeroBitCount }
            let maxima = [masks.0, masks.1, masks.2].map { UInt($0) >> UInt($0).trailingZeroBitCount }
            for row in 0..<height {
                for col in 0..<width {
                    let pixel = UInt(getPixel(handle, Int32(col), Int32(row)))
                    for channel in 0..<3 where maxima[channel] > 0 {
                        let value = (pixel >> shifts[channel]) & maxima[channel]
                        out[(row * width + col) * 3 + channel] = UInt8(value * 255 / maxima[channel])
                    }
                }
            }
        }
        return RGBImage(width: width, height: height, bytes: out)!
    }
}
