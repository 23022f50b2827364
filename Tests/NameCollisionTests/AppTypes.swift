import KeyboardAdapter
import Testing

// An app's own geometry and model types, of the same names as the library's: an app (or a UI
// toolkit it imports) may well have them. Its own declarations win where it writes the bare name;
// the library's are reached through the module's name.

/// The app's own rectangle, in floating point as UI toolkits keep them.
struct Rect: Equatable {
    var x, y, width, height: Double
}

/// The app's own edge of a view.
enum Edge { case leading, trailing, top, bottom }

/// The app's own insets.
struct EdgeInsets: Equatable { var top = 0.0, bottom = 0.0 }

/// The app's own output (a log sink, say).
struct Output { var lines: [String] = [] }

/// The app's own keyboard layout setting.
struct InputLayout { var name: String }

/// The app's own animation curve.
enum AnimationCurve { case spring, linear }

/// The app's own window geometry helper.
enum WindowGeometry { static let margin = 8.0 }

@Suite("an app's own types of the library's names")
struct NameCollisionTests {
    @Test("an app declares Rect, Edge, EdgeInsets, Output, InputLayout, AnimationCurve, WindowGeometry and uses both")
    func bothCompile() {
        let mine = Rect(x: 0, y: 0, width: 10.5, height: 20)
        let theirs = KeyboardAdapter.Rect(x: 0, y: 560, width: 1280, height: 240)
        let edge: Edge = .bottom
        let dockedAt: KeyboardAdapter.Edge = .bottom
        let insets = KeyboardAdapter.WindowGeometry.insets(
            for: [theirs], inWindow: KeyboardAdapter.Rect(x: 0, y: 0, width: 1280, height: 800))
        let appInsets = EdgeInsets(top: 0, bottom: Double(insets.bottom) + WindowGeometry.margin)
        let output = KeyboardAdapter.Output(name: "screen", frame: theirs)
        var log = Output()
        log.lines.append(output.name)
        let layout = InputLayout(name: "mine")
        let theirLayout = KeyboardAdapter.InputLayout(name: "English (US)", code: "us")
        let curve: AnimationCurve = .spring
        let theirCurve: KeyboardAdapter.AnimationCurve = .easeInOut
        #expect(mine.width == 10.5 && theirs.height == 240)
        #expect(edge == .bottom && dockedAt == .bottom)
        #expect(insets.bottom == 240 && appInsets.bottom == 248)
        #expect(log.lines == ["screen"] && layout.name == "mine" && theirLayout.code == "us")
        #expect(curve == .spring && theirCurve == .easeInOut)
        let _: KeyboardAdapter.EdgeInsets = insets
    }
}
