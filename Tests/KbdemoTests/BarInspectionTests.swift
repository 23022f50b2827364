import KeyboardAdapter
import ScreenCapture
import Testing

/// The inspection the pixel tests rely on, checked on drawn images first.
@Suite("kbdemo: reading the bar out of a capture")
struct BarInspectionTests {
    let bar: UInt32 = 0x2E6BD8
    let window = Rect(x: 100, y: 50, width: 400, height: 300)

    func picture(barEnd: Int, keyboard: Rect?) -> RGBImage {
        var image = RGBImage(width: 640, height: 480, filledWith: 0xF4F6FA)
        for y in barEnd - 48..<barEnd {
            for x in window.x..<window.maxX { image.setColor(bar, x: x, y: y) }
        }
        if let keyboard {
            for y in keyboard.y..<keyboard.maxY {
                for x in keyboard.x..<keyboard.maxX { image.setColor(0xCCCCCC, x: x, y: y) }
            }
        }
        return image
    }

    func problems(_ image: RGBImage, _ keyboard: Rect?) -> [String] {
        BarInspection.problems(in: image, window: window, keyboard: keyboard, color: bar, height: 48, margin: 12)
    }

    @Test("a bar at the window's bottom with no keyboard passes")
    func atBottom() {
        #expect(problems(picture(barEnd: 350, keyboard: nil), nil) == [])
    }

    @Test("a bar on the keyboard's top edge passes, within one pixel")
    func onKeyboard() {
        let keyboard = Rect(x: 0, y: 260, width: 640, height: 220)
        #expect(problems(picture(barEnd: 260, keyboard: keyboard), keyboard) == [])
        #expect(problems(picture(barEnd: 261, keyboard: nil), keyboard).count == 1, "one row under the keyboard")
        #expect(problems(picture(barEnd: 259, keyboard: keyboard), keyboard) == [])
        #expect(problems(picture(barEnd: 257, keyboard: keyboard), keyboard).count == 2, "3 px off in both columns")
    }

    @Test("a bar left under the keyboard fails")
    func underKeyboard() {
        let keyboard = Rect(x: 0, y: 260, width: 640, height: 220)
        let found = problems(picture(barEnd: 350, keyboard: keyboard), keyboard)
        #expect(found.count == 2, "\(found)")
        #expect(found.allSatisfy { $0.contains("expected one run") })
    }

    @Test("bar pixels inside the keyboard's frame are reported")
    func pixelsInside() {
        let keyboard = Rect(x: 200, y: 260, width: 100, height: 100)
        var image = picture(barEnd: 260, keyboard: keyboard)
        image.setColor(bar, x: 250, y: 300)
        let found = problems(image, keyboard)
        #expect(found == ["1 bar pixels inside the keyboard's frame \(keyboard)"])
    }
}
