import Foundation
import KeyboardAdapter
@_spi(BackendRun) import KeyboardBackendInterface
import ScreenCapture
import TestSupport
import Testing

@testable import kbdemo

/// The bar in lock-step with a real slide: screen captures taken while onboard, docked at the
/// bottom, slides in over kbdemo's window (after one slide was measured), each read for the
/// keyboard's top edge and the bar's bottom edge at that moment.
@Suite("kbdemo: the bar follows onboard's slide, in pixels")
struct SlidePixelTests {
    /// One capture read: where the bar ends and where the keyboard begins, in one column.
    struct Reading: CustomStringConvertible {
        var barEnd: Int
        var keyboardTop: Int
        var description: String { "bar ends \(barEnd), keyboard top \(keyboardTop)" }
    }

    /// Reads column `x` from the window's top: the bar's run, then the window background, then
    /// the first row of another colour, which is the keyboard's top edge (the window's bottom
    /// edge when nothing covers it).
    static func read(_ image: RGBImage, column x: Int, window: Rect) -> Reading? {
        let runs = BarInspection.runs(in: image, column: x, from: window.y, to: window.maxY, color: Palette.bar)
        guard runs.count == 1, let bar = runs.first else { return nil }
        var y = bar.upperBound
        while y < window.maxY, image.color(x: x, y: y) == Palette.background { y += 1 }
        return Reading(barEnd: bar.upperBound, keyboardTop: y)
    }

    /// As the X11 tests' steps do, a pause after each slide before the next request: onboard took
    /// no notice of a Show sent right after its hide was reported.
    static let pause = 0.5

    @Test("in the middle of a docked slide the bar's bottom edge is within one slide step of the keyboard's top edge")
    func midSlide() throws {
        let programs = ["onboard", "dbus-run-session", "dbus-send", "gsettings"]
        guard let world = try DemoWorld.make(keyboard: "onboard", programs: programs, position: "240,180") else {
            return
        }
        let onboard = try Onboard(on: world.session, settings: Onboard.dockedBottom)
        defer { onboard.stop() }
        try world.waitForLines("didShow onboard", count: 1, timeout: 20)
        // One slide out and in is measured first, so that the next one is predicted.
        try onboard.call("Hide")
        try world.waitForLines("didHide onboard", count: 1)
        Thread.sleep(forTimeInterval: Self.pause)
        try onboard.call("Show")
        try world.waitForLines("didShow onboard", count: 2)
        Thread.sleep(forTimeInterval: Self.pause)
        try onboard.call("Hide")
        try world.waitForLines("didHide onboard", count: 2)
        Thread.sleep(forTimeInterval: Self.pause)
        let window = try world.frame(of: world.window)
        #expect(window.maxY >= 780 && window.maxY <= 800, "the window reaches down to the screen's bottom: \(window)")

        try onboard.call("Show")
        var readings: [Reading] = []
        let start = MonotonicClock.now()
        while MonotonicClock.now() - start < 0.8 {
            let image = try world.grabber.capture()
            if let reading = Self.read(image, column: window.x + BarMetrics.fieldMargin / 3, window: window) {
                readings.append(reading)
            }
        }
        try world.waitForLines("didShow onboard", count: 3)
        // Mid-slide: the keyboard's top edge between its resting place (595) and the screen's bottom.
        let moving = readings.filter { $0.keyboardTop > 600 && $0.keyboardTop < 790 }
        try #require(!moving.isEmpty, "no capture caught the slide: \(readings)")
        let middle = moving[moving.count / 2]
        print("slide captures: \(moving)")
        #expect(abs(middle.barEnd - middle.keyboardTop) <= 30, "mid-slide: \(middle); all: \(moving)")
        #expect(
            readings.last.map { $0.barEnd == $0.keyboardTop } == true,
            "at rest: \(readings.last.map { "\($0)" } ?? "-")")
        #expect(world.quitDemo() == 0)
    }
}
