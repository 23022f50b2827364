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

/// What the kwin backend delivers while the package's KWin script reports the keyboard's window.
@Suite("VirtualKeyboardReports with the KWin script")
struct CompanionReportsTests {
    static let panel = CompanionReport.Panel(
        frame: Rect(x: 0, y: 488, width: 1280, height: 312), outputName: "Virtual-0")
    static let app = AppIdentity(processIDs: [42], appIDs: ["org.example.Chat"])

    static func line(_ observation: KeyboardObservation) -> String {
        "\(observation.isShown ? "shown" : "hidden") \(observation.frame.map(\.description) ?? "no frame") "
            + "\(observation.output?.name ?? "-") \(observation.geometry.rawValue) "
            + "docked=\(observation.isDocked.map(String.init) ?? "nil") \(observation.dockedEdge?.rawValue ?? "-") "
            + "local=\(observation.isLocal.map(String.init) ?? "nil")"
    }

    @Test("the window decides: up at its frame on its output, docked at the bottom; the service's visible is not asked")
    func windowDecides() {
        var reports = VirtualKeyboardReports(identity: VirtualKeyboardReportsTests.identity)
        _ = reports.outputChanged(1, to: VirtualKeyboardReportsTests.first, time: 0)
        _ = reports.outputChanged(2, to: VirtualKeyboardReportsTests.second, time: 0)
        let focused = CompanionReport(focus: .init(pid: 42, appIDs: []))
        // KWin 6 signals visible before its window exists: nothing yet.
        #expect(reports.serviceChanged(visible: true, companion: focused, time: 1, app: { Self.app }).isEmpty)
        var up = focused
        up.panel = Self.panel
        #expect(
            reports.serviceChanged(visible: true, companion: up, time: 2, app: { Self.app }).map(Self.line) == [
                "shown 0,488 1280x312 Virtual-0 derived docked=true bottom local=true"
            ])
        // The window gone is the hide, whatever visible still says; the show's verdict goes with it.
        #expect(
            reports.serviceChanged(visible: true, companion: focused, time: 3, app: { Self.app }).map(Self.line) == [
                "hidden no frame Virtual-0 derived docked=nil - local=true"
            ])
    }

    @Test("isLocal: the focused window's pid or app ids against the app's; nil when nothing compares")
    func focusVerdicts() {
        func verdict(_ focus: CompanionReport.Focus?, _ app: AppIdentity) -> Bool? {
            app.isLocal(given: CompanionReport(panel: Self.panel, focus: focus).focusedTopLevel)
        }
        #expect(verdict(.init(pid: 42, appIDs: []), Self.app) == true)
        #expect(verdict(.init(pid: 7, appIDs: ["org.example.Chat.desktop"]), Self.app) == true)
        #expect(verdict(.init(pid: 7, appIDs: ["firefox"]), Self.app) == false)
        #expect(verdict(nil, Self.app) == false)
        #expect(verdict(.init(pid: 7, appIDs: []), AppIdentity()) == nil)
        #expect(verdict(.init(pid: nil, appIDs: ["firefox"]), AppIdentity(processIDs: [42])) == nil)
    }
}
