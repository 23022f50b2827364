/// A picture of the screen, or of a part of it: 8-bit red, green and blue per pixel, row by row
/// from the top-left corner.
public struct RGBImage: Sendable, Equatable {
    /// The width in pixels.
    public let width: Int
    /// The height in pixels.
    public let height: Int
    /// `width * height * 3` bytes: R, G, B of each pixel, rows top to bottom.
    public private(set) var bytes: [UInt8]

    /// Creates an image from its bytes; nil when their count does not match the size.
    public init?(width: Int, height: Int, bytes: [UInt8]) {
        guard width >= 0, height >= 0, bytes.count == width * height * 3 else { return nil }
        self.width = width
        self.height = height
        self.bytes = bytes
    }

    /// An image of one colour (`0xRRGGBB`).
    public init(width: Int, height: Int, filledWith color: UInt32) {
        self.width = max(0, width)
        self.height = max(0, height)
        let pixel = [UInt8(color >> 16 & 0xFF), UInt8(color >> 8 & 0xFF), UInt8(color & 0xFF)]
        bytes = Array([[UInt8]](repeating: pixel, count: self.width * self.height).joined())
    }

    /// The colour at (`x`, `y`) as `0xRRGGBB`; nil outside the image.
    public func color(x: Int, y: Int) -> UInt32? {
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        let i = (y * width + x) * 3
        return UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
    }

    /// Sets the colour at (`x`, `y`); ignored outside the image.
    public mutating func setColor(_ color: UInt32, x: Int, y: Int) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let i = (y * width + x) * 3
        bytes[i] = UInt8(color >> 16 & 0xFF)
        bytes[i + 1] = UInt8(color >> 8 & 0xFF)
        bytes[i + 2] = UInt8(color & 0xFF)
    }

    /// The part of the image inside the given rectangle (clipped to the image).
    public func cropped(x: Int, y: Int, width: Int, height: Int) -> RGBImage {
        let left = max(0, x)
        let top = max(0, y)
        let right = min(self.width, x + width)
        let bottom = min(self.height, y + height)
        guard right > left, bottom > top else { return RGBImage(width: 0, height: 0, filledWith: 0) }
        var out: [UInt8] = []
        out.reserveCapacity((right - left) * (bottom - top) * 3)
        for row in top..<bottom {
            let start = (row * self.width + left) * 3
            out.append(contentsOf: bytes[start..<start + (right - left) * 3])
        }
        return RGBImage(width: right - left, height: bottom - top, bytes: out)!
    }
}
