import KeyboardAdapterCore
import Testing

@testable import KWinAdapter

/// What the kwin backend delivers as KWin's `visible`, the outputs and the layout change.
@Suite("VirtualKeyboardReports")
struct VirtualKeyboardReportsTests {
    static let identity = KeyboardIdentity(id: "kwin:virtual-keyboard", name: "KWin virtual keyboard")
    static let first = Output(name: "Virtual-0", frame: Rect(x: 0, y: 0, width: 1280, height: 800))
    static let second = Output(name: "Virtual-1", frame: Rect(x: 1280, y: 0, width: 800, height: 600))

    static func lines(_ observations: [KeyboardObservation]) -> [String] {
        observations.map {
            "\($0.isShown ? "shown" : "hidden") \($0.frame.map(\.description) ?? "no frame") "
                + "\($0.output?.name ?? "-") \($0.geometry.rawValue) \($0.layout?.name ?? "nil")"
        }
    }

    @Test("shown and hidden with no frame, geometry unknown, on the only output")
    func showHide() {
        var reports = VirtualKeyboardReports(identity: Self.identity)
        #expect(reports.outputChanged(1, to: Self.first, time: 0).isEmpty)
        #expect(reports.visibilityChanged(to: false, time: 0).isEmpty)
        #expect(Self.lines(reports.visibilityChanged(to: true, time: 1)) == ["shown no frame Virtual-0 unknown nil"])
        #expect(reports.visibilityChanged(to: true, time: 2).isEmpty)
        #expect(Self.lines(reports.visibilityChanged(to: false, time: 3)) == ["hidden no frame Virtual-0 unknown nil"])
        #expect(reports.visibilityChanged(to: false, time: 4).isEmpty)
    }

    @Test("with two outputs the output is not known; a layout change while up is delivered")
    func outputsAndLayout() {
        var reports = VirtualKeyboardReports(identity: Self.identity)
        _ = reports.outputChanged(1, to: Self.first, time: 0)
        _ = reports.outputChanged(2, to: Self.second, time: 0)
        #expect(Self.lines(reports.visibilityChanged(to: true, time: 1)) == ["shown no frame - unknown nil"])
        let layout = InputLayout(name: "English (US)", code: "us")
        #expect(Self.lines(reports.layoutChanged(to: layout, time: 2)) == ["shown no frame - unknown English (US)"])
        #expect(
            Self.lines(reports.outputChanged(2, to: nil, time: 3)) == ["shown no frame Virtual-0 unknown English (US)"])
        #expect(reports.layoutChanged(to: layout, time: 4).isEmpty)
    }
}
