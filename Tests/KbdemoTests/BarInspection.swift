import KeyboardAdapter
import ScreenCapture

/// Reads the input bar out of a screen capture: the bar is the only thing painted in
/// `Palette.bar`, and its first and last 12 columns are that colour on all 48 rows, so a column
/// there shows exactly where the bar's rows are.
enum BarInspection {
    /// The runs of bar-coloured rows in column `x`, between rows `top` and `bottom` (exclusive).
    static func runs(in image: RGBImage, column x: Int, from top: Int, to bottom: Int, color: UInt32) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var start: Int?
        for y in max(0, top)..<max(max(0, top), min(bottom, image.height)) {
            let isBar = image.color(x: x, y: y) == color
            if isBar, start == nil { start = y }
            if !isBar, let first = start {
                runs.append(first..<y)
                start = nil
            }
        }
        if let first = start { runs.append(first..<min(bottom, image.height)) }
        return runs
    }

    /// What is wrong with the bar in `image` for a window at `window` and a keyboard at `keyboard`
    /// (nil: hidden), both in root coordinates as `xwininfo -id` reports them; empty when nothing is.
    ///
    /// The bar must be whole (48 rows in both margin columns), its last row must be the row just
    /// above the keyboard's top edge (within `tolerance`), or the window's last row when the
    /// keyboard covers none of the window, and no bar pixel may be inside the keyboard's frame.
    static func problems(
        in image: RGBImage, window: Rect, keyboard: Rect?, color: UInt32, height: Int,
        margin: Int, tolerance: Int = 1
    ) -> [String] {
        var problems: [String] = []
        let covered = keyboard.flatMap { $0.intersection(window) }
        // Where the bar should end (exclusive): on the keyboard's top edge, or the window's bottom.
        let expectedEnd = covered.map { _ in keyboard!.y } ?? window.maxY
        let columns = [window.x + margin / 3, window.maxX - 1 - margin / 3]
        for x in columns {
            let found = runs(in: image, column: x, from: window.y, to: window.maxY, color: color)
            guard found.count == 1, let run = found.first else {
                problems.append("column \(x): expected one run of bar rows, found \(found)")
                continue
            }
            if run.count != height {
                problems.append("column \(x): the bar has \(run.count) visible rows (\(run)), not \(height)")
            }
            if abs(run.upperBound - expectedEnd) > tolerance {
                problems.append(
                    "column \(x): the bar's last row is \(run.upperBound - 1), expected \(expectedEnd - 1)"
                        + (keyboard.map { " (keyboard top edge \($0.y))" } ?? " (window bottom)"))
            }
        }
        if let covered {
            var count = 0
            for y in covered.y..<covered.maxY {
                for x in covered.x..<covered.maxX where image.color(x: x, y: y) == color { count += 1 }
            }
            if count > 0 { problems.append("\(count) bar pixels inside the keyboard's frame \(keyboard!)") }
        }
        return problems
    }
}
