import Foundation
import ScreenCapture
import TestSupport
import Testing

/// The chat examples' bar in pixels: they paint it one solid colour that nothing else on their
/// screen has, so the lowest run of that colour in a column of a screenshot is the bar as drawn.
/// A toolkit may tint the bar's edge rows a little (GTK's window outline on the last row, an
/// entry's shadow above it): a colour within `tolerance` of the bar's in each channel counts.
/// Where it ends says where the bar is; how tall it is says whether part of it is hidden (under a
/// keyboard stacked above it, say), which the position alone would not show.
enum ExamplePixels {
    /// The bar's colour, `#3465a4`.
    static let barColor: UInt32 = 0x3465a4
    /// How far each of red, green and blue may be from the bar's and still count as the bar.
    static let tolerance = 24

    /// Whether `color` (`0xRRGGBB`) is the bar's, within the tolerance.
    static func isBar(_ color: UInt32?) -> Bool {
        guard let color else { return false }
        return [16, 8, 0].allSatisfy { shift in
            abs(Int(color >> UInt32(shift) & 0xFF) - Int(barColor >> UInt32(shift) & 0xFF)) <= tolerance
        }
    }

    /// The rows of the lowest run of the bar's colour in `column`: its top row and the row below
    /// its last (so `end` compares with a reported bottom edge); nil when the column has none.
    static func lowestBar(in image: RGBImage, column: Int) -> (top: Int, end: Int)? {
        var y = image.height - 1
        while y >= 0, !isBar(image.color(x: column, y: y)) { y -= 1 }
        guard y >= 0 else { return nil }
        let end = y + 1
        while y >= 0, isBar(image.color(x: column, y: y)) { y -= 1 }
        return (y + 1, end)
    }

    /// A check that takes screenshots with `capture` and looks at `column`: the bar must end on
    /// the reported edge, and be as tall as it was at the first check (the window alone). A
    /// screenshot may be taken before the app's last frame reached the screen, so it looks again
    /// for up to 5 s before it records the difference.
    static func check(column: Int, capture: @escaping () throws -> RGBImage) -> ExampleBar.PixelCheck {
        let height = Remembered<Int?>(nil)
        return { bottom, step in
            var found: (top: Int, end: Int)?
            let matched = Wait.until(timeout: 5) {
                found = (try? capture()).flatMap { lowestBar(in: $0, column: column) }
                guard let found else { return false }
                return found.end == bottom && (height.value == nil || found.end - found.top == height.value)
            }
            guard let found else {
                Issue.record("no bar of #3465a4 in column \(column) (\(step))")
                return
            }
            #expect(
                matched, "\(step): the bar's rows on screen are \(found.top)..<\(found.end), reported bottom \(bottom)")
            if height.value == nil { height.value = found.end - found.top }
        }
    }

    /// A check on an X server (`display`), from its root window's pixels.
    static func x11(display: String, column: Int) throws -> ExampleBar.PixelCheck {
        let grabber = try ScreenGrabber(displayName: display)
        return check(column: column) { try grabber.capture() }
    }

    /// An image from a binary PPM (P6, 8 bits), as grim writes it; nil for anything else.
    static func ppm(_ data: Data) -> RGBImage? {
        // The header: magic, width, height, maximum value, each followed by one whitespace.
        var fields: [Int] = []
        var index = data.startIndex
        var field = ""
        guard data.starts(with: Array("P6".utf8)) else { return nil }
        index += 2
        while fields.count < 3, index < data.endIndex {
            let byte = data[index]
            index += 1
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t") {
                if !field.isEmpty, let value = Int(field) { fields.append(value) }
                field = ""
            } else if field.count < 6 {
                field.append(Character(UnicodeScalar(byte)))
            } else {
                return nil
            }
        }
        guard fields.count == 3, fields[2] == 255 else { return nil }
        return RGBImage(width: fields[0], height: fields[1], bytes: Array(data[index...]))
    }
}

/// A value a closure keeps between its calls.
final class Remembered<Value> {
    var value: Value
    init(_ value: Value) { self.value = value }
}
