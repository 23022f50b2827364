/// A rectangle in global logical pixels: the X11 root window's coordinates, or the Wayland
/// compositor's layout coordinates. The origin is the top-left corner; y grows downwards.
public struct Rect: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The left edge.
    public var x: Int
    /// The top edge.
    public var y: Int
    /// The width; never negative in a value the library produces.
    public var width: Int
    /// The height; never negative in a value the library produces.
    public var height: Int

    /// Creates a rectangle from its origin and size.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The empty rectangle at the origin.
    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    /// The x coordinate just past the right edge.
    public var maxX: Int { x + width }
    /// The y coordinate just past the bottom edge.
    public var maxY: Int { y + height }
    /// The area in square pixels.
    public var area: Int { width * height }
    /// True when the rectangle covers no pixel.
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    /// The overlap of two rectangles, or nil when they share no pixel.
    public func intersection(_ other: Rect) -> Rect? {
        let left = max(x, other.x)
        let top = max(y, other.y)
        let right = min(maxX, other.maxX)
        let bottom = min(maxY, other.maxY)
        guard right > left, bottom > top else { return nil }
        return Rect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// True when the two rectangles share at least one pixel.
    public func intersects(_ other: Rect) -> Bool { intersection(other) != nil }

    /// True when `other` lies wholly inside this rectangle.
    public func contains(_ other: Rect) -> Bool {
        other.x >= x && other.y >= y && other.maxX <= maxX && other.maxY <= maxY
    }

    /// The smallest rectangle that holds both; an empty operand is ignored.
    public func union(_ other: Rect) -> Rect {
        if isEmpty { return other }
        if other.isEmpty { return self }
        let left = min(x, other.x)
        let top = min(y, other.y)
        return Rect(x: left, y: top, width: max(maxX, other.maxX) - left, height: max(maxY, other.maxY) - top)
    }

    /// The same rectangle moved by the given offsets.
    public func offsetBy(dx: Int, dy: Int) -> Rect {
        Rect(x: x + dx, y: y + dy, width: width, height: height)
    }

    /// Human form, as `x,y WxH`.
    public var description: String { "\(x),\(y) \(width)x\(height)" }
}

/// One of the four edges of an output or a window.
public enum Edge: String, Sendable, Hashable, Codable, CaseIterable {
    /// The top edge.
    case top
    /// The bottom edge.
    case bottom
    /// The left edge.
    case left
    /// The right edge.
    case right
}

/// Distances kept free from each edge of a rectangle, in logical pixels.
public struct EdgeInsets: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Space to keep free at the top.
    public var top: Int
    /// Space to keep free at the bottom.
    public var bottom: Int
    /// Space to keep free on the left.
    public var left: Int
    /// Space to keep free on the right.
    public var right: Int

    /// Creates insets from the four distances.
    public init(top: Int = 0, bottom: Int = 0, left: Int = 0, right: Int = 0) {
        self.top = top
        self.bottom = bottom
        self.left = left
        self.right = right
    }

    /// No inset on any edge.
    public static let zero = EdgeInsets()

    /// The inset on the given edge.
    public subscript(edge: Edge) -> Int {
        get {
            switch edge {
            case .top: top
            case .bottom: bottom
            case .left: left
            case .right: right
            }
        }
        set {
            switch edge {
            case .top: top = newValue
            case .bottom: bottom = newValue
            case .left: left = newValue
            case .right: right = newValue
            }
        }
    }

    /// Human form, as `top,bottom,left,right`.
    public var description: String { "top \(top), bottom \(bottom), left \(left), right \(right)" }
}
