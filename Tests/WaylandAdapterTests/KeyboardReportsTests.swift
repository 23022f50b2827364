import KeyboardAdapterCore
import Testing

@testable import WaylandAdapter

/// What the backend delivers as outputs and usable areas change, without a compositor.
@Suite("KeyboardReports")
struct KeyboardReportsTests {
    static let first = Output(name: "HEADLESS-1", frame: Rect(x: 0, y: 0, width: 1280, height: 800))
    static let second = Output(name: "HEADLESS-2", frame: Rect(x: 1280, y: 0, width: 960, height: 540))
    static let full = Rect(x: 0, y: 0, width: 1280, height: 800)
    static let docked = Rect(x: 0, y: 0, width: 1280, height: 560)
    static let keyboard = Rect(x: 0, y: 560, width: 1280, height: 240)

    /// `id frame-or-hidden output layout` per observation.
    static func lines(_ observations: [KeyboardObservation]) -> [String] {
        observations.map {
            "\($0.keyboard.id) \($0.frame.map(\.description) ?? "hidden") \($0.output?.name ?? "-") "
                + "\($0.layout?.name ?? "nil") \($0.geometry.rawValue) docked=\($0.isDocked == true) "
                + "edge=\($0.dockedEdge?.rawValue ?? "-")"
        }
    }

    static func shown() -> KeyboardReports {
        var reports = KeyboardReports()
        _ = reports.outputChanged(1, to: first, time: 0)
        _ = reports.usableAreaChanged(1, to: full, time: 0)
        return reports
    }

    @Test("nothing until the usable area shrinks; then the keyboard, then its hide")
    func showAndHide() {
        var reports = KeyboardReports()
        #expect(reports.outputChanged(1, to: Self.first, time: 0).isEmpty)
        #expect(reports.usableAreaChanged(1, to: Self.full, time: 0).isEmpty)
        #expect(
            Self.lines(reports.usableAreaChanged(1, to: Self.docked, time: 1)) == [
                "wayland:HEADLESS-1:bottom 0,560 1280x240 HEADLESS-1 nil derived docked=true edge=bottom"
            ])
        #expect(reports.usableAreaChanged(1, to: Self.docked, time: 2).isEmpty)
        #expect(
            Self.lines(reports.usableAreaChanged(1, to: Self.full, time: 3)) == [
                "wayland:HEADLESS-1:bottom hidden HEADLESS-1 nil derived docked=true edge=bottom"
            ])
    }

    @Test("the area measured before the output is known is used once it is")
    func areaBeforeOutput() {
        var reports = KeyboardReports()
        #expect(reports.usableAreaChanged(1, to: Self.full, time: 0).isEmpty)
        #expect(reports.outputChanged(1, to: Self.first, time: 0).isEmpty)
        #expect(reports.usableArea(of: 1) == Self.full)
        #expect(reports.usableAreaChanged(1, to: Self.docked, time: 1).count == 1)
    }

    @Test("a keyboard on a removed output is hidden, and the output forgotten")
    func outputRemoved() {
        var reports = Self.shown()
        _ = reports.usableAreaChanged(1, to: Self.docked, time: 1)
        #expect(
            Self.lines(reports.outputRemoved(1, time: 2)) == [
                "wayland:HEADLESS-1:bottom hidden HEADLESS-1 nil derived docked=true edge=bottom"
            ])
        #expect(reports.usableArea(of: 1) == nil)
        #expect(reports.hideAll(time: 3).isEmpty)
    }

    @Test("a closed probe hides the output's keyboards; a new probe's area starts over from the baseline")
    func probeClosed() {
        var reports = Self.shown()
        _ = reports.usableAreaChanged(1, to: Self.docked, time: 1)
        #expect(Self.lines(reports.probeClosed(1, time: 2)).map { $0.contains("hidden") } == [true])
        #expect(reports.usableArea(of: 1) == nil)
        #expect(reports.usableAreaChanged(1, to: Self.docked, time: 3).count == 1)
    }

    @Test("keyboards on two outputs are independent and in global coordinates")
    func twoOutputs() {
        var reports = Self.shown()
        _ = reports.outputChanged(2, to: Self.second, time: 0)
        _ = reports.usableAreaChanged(2, to: Rect(x: 0, y: 0, width: 960, height: 540), time: 0)
        #expect(
            Self.lines(reports.usableAreaChanged(2, to: Rect(x: 0, y: 0, width: 960, height: 300), time: 1)) == [
                "wayland:HEADLESS-2:bottom 1280,300 960x240 HEADLESS-2 nil derived docked=true edge=bottom"
            ])
        #expect(reports.usableArea(of: 2) == Rect(x: 1280, y: 0, width: 960, height: 300))
        #expect(reports.usableArea(of: 1) == Self.full)
    }

    @Test("an output that moves takes its keyboard along, with the new output")
    func outputMoved() {
        var reports = Self.shown()
        _ = reports.usableAreaChanged(1, to: Self.docked, time: 1)
        let moved = Output(name: "HEADLESS-1", frame: Rect(x: 100, y: 0, width: 1280, height: 800))
        #expect(
            Self.lines(reports.outputChanged(1, to: moved, time: 2)) == [
                "wayland:HEADLESS-1:bottom 100,560 1280x240 HEADLESS-1 nil derived docked=true edge=bottom"
            ])
        #expect(reports.outputChanged(1, to: moved, time: 3).isEmpty)
    }

    @Test("a renamed output: its keyboard hides under the old id and shows under the new one")
    func outputRenamed() {
        var reports = Self.shown()
        _ = reports.usableAreaChanged(1, to: Self.docked, time: 1)
        let renamed = Output(name: "HDMI-A-1", frame: Rect(x: 0, y: 0, width: 1280, height: 800))
        #expect(
            Self.lines(reports.outputChanged(1, to: renamed, time: 2)) == [
                "wayland:HEADLESS-1:bottom hidden HEADLESS-1 nil derived docked=true edge=bottom",
                "wayland:HDMI-A-1:bottom 0,560 1280x240 HDMI-A-1 nil derived docked=true edge=bottom",
            ])
    }

    @Test("a layout change re-delivers shown keyboards with the layout; nothing when none is shown")
    func layoutChanged() {
        var reports = Self.shown()
        #expect(reports.layoutChanged(to: InputLayout(name: "wvkbd"), time: 1).isEmpty)
        _ = reports.usableAreaChanged(1, to: Self.docked, time: 2)
        #expect(
            Self.lines(reports.layoutChanged(to: InputLayout(name: "English (US)"), time: 3)) == [
                "wayland:HEADLESS-1:bottom 0,560 1280x240 HEADLESS-1 English (US) derived docked=true edge=bottom"
            ])
        #expect(reports.layoutChanged(to: InputLayout(name: "English (US)"), time: 4).isEmpty)
    }

    @Test("hideAll hides every shown keyboard on every output, once")
    func hideAll() {
        var reports = Self.shown()
        _ = reports.outputChanged(2, to: Self.second, time: 0)
        _ = reports.usableAreaChanged(2, to: Rect(x: 0, y: 0, width: 960, height: 540), time: 0)
        _ = reports.usableAreaChanged(1, to: Self.docked, time: 1)
        _ = reports.usableAreaChanged(2, to: Rect(x: 200, y: 0, width: 760, height: 540), time: 1)
        #expect(
            Self.lines(reports.hideAll(time: 2)) == [
                "wayland:HEADLESS-1:bottom hidden HEADLESS-1 nil derived docked=true edge=bottom",
                "wayland:HEADLESS-2:left hidden HEADLESS-2 nil derived docked=true edge=left",
            ])
        #expect(reports.hideAll(time: 3).isEmpty)
    }

    @Test("a keyboard moving from the bottom to the left is one hide and one show")
    func edgeSwitch() {
        var reports = Self.shown()
        _ = reports.usableAreaChanged(1, to: Self.docked, time: 1)
        #expect(
            Self.lines(reports.usableAreaChanged(1, to: Rect(x: 200, y: 0, width: 1080, height: 800), time: 2)) == [
                "wayland:HEADLESS-1:bottom hidden HEADLESS-1 nil derived docked=true edge=bottom",
                "wayland:HEADLESS-1:left 0,0 200x800 HEADLESS-1 nil derived docked=true edge=left",
            ])
    }
}

extension KeyboardReportsTests {
    @Test("an output plugged while watching: its bar, arriving after the first usable area, is a panel")
    func pluggedOutputBar() {
        var reports = KeyboardReports()
        reports.outputPlugged(2)
        #expect(reports.outputChanged(2, to: Self.second, time: 10).isEmpty)
        // The probe's first measure has no bar yet; swaybar's 23 px arrive 30 ms later.
        #expect(reports.usableAreaChanged(2, to: Rect(x: 0, y: 0, width: 960, height: 540), time: 10).isEmpty)
        #expect(reports.usableAreaChanged(2, to: Rect(x: 0, y: 23, width: 960, height: 517), time: 10.03).isEmpty)
        // After the settle time a keyboard is reported over the bar, at the outer edge.
        #expect(
            Self.lines(reports.usableAreaChanged(2, to: Rect(x: 0, y: 23, width: 960, height: 277), time: 13)) == [
                "wayland:HEADLESS-2:bottom 1280,300 960x240 HEADLESS-2 nil derived docked=true edge=bottom"
            ])
    }

    @Test("an output present at start learns panels as before: a later growth is a keyboard at once")
    func outputAtStart() {
        var reports = Self.shown()
        #expect(reports.usableAreaChanged(1, to: Self.docked, time: 0.01).count == 1)
    }
}
