import KeyboardAdapterCore
import Testing

@testable import WaylandAdapter

/// The pure keyboard-versus-panel rules, without a compositor.
@Suite("InsetClassifier")
struct InsetClassifierTests {
    static let output = Rect(x: 0, y: 0, width: 1280, height: 800)
    static let second = Rect(x: 1280, y: 0, width: 960, height: 540)

    static func insets(_ usable: Rect, in output: Rect = output) -> EdgeInsets {
        InsetClassifier.insets(usable: usable, outputWidth: output.width, outputHeight: output.height)
    }

    @Test("insets of a usable area inside its output")
    func insetsOfUsableArea() {
        #expect(Self.insets(Rect(x: 0, y: 0, width: 1280, height: 800)) == .zero)
        #expect(Self.insets(Rect(x: 0, y: 0, width: 1280, height: 560)) == EdgeInsets(bottom: 240))
        #expect(
            Self.insets(Rect(x: 200, y: 23, width: 1000, height: 700))
                == EdgeInsets(top: 23, bottom: 77, left: 200, right: 80))
    }

    @Test("no keyboard while the area keeps its first size")
    func firstAreaIsBaseline() {
        var classifier = InsetClassifier()
        #expect(
            classifier.classify(Self.insets(Rect(x: 0, y: 0, width: 1280, height: 800)), output: Self.output).isEmpty)
        #expect(classifier.baseline == .zero)
    }

    @Test("a bottom keyboard is the growth at the bottom, placed at the outer edge")
    func bottomKeyboard() {
        var classifier = InsetClassifier()
        _ = classifier.classify(.zero, output: Self.output)
        let shown = classifier.classify(EdgeInsets(bottom: 240), output: Self.output)
        #expect(shown == [DockedKeyboard(edge: .bottom, frame: Rect(x: 0, y: 560, width: 1280, height: 240))])
        #expect(classifier.classify(.zero, output: Self.output).isEmpty)
    }

    @Test("a bottom bar is baseline; a keyboard below it is only the growth")
    func bottomBarThenKeyboard() {
        var classifier = InsetClassifier()
        #expect(classifier.classify(EdgeInsets(bottom: 23), output: Self.output).isEmpty)
        let shown = classifier.classify(EdgeInsets(bottom: 263), output: Self.output)
        #expect(shown == [DockedKeyboard(edge: .bottom, frame: Rect(x: 0, y: 560, width: 1280, height: 240))])
        #expect(classifier.classify(EdgeInsets(bottom: 23), output: Self.output).isEmpty)
        #expect(classifier.baseline == EdgeInsets(bottom: 23))
    }

    @Test("a top bar never counts; a bottom keyboard with it is exact")
    func topBarAndBottomKeyboard() {
        var classifier = InsetClassifier()
        _ = classifier.classify(EdgeInsets(top: 23), output: Self.output)
        let shown = classifier.classify(EdgeInsets(top: 23, bottom: 240), output: Self.output)
        #expect(shown == [DockedKeyboard(edge: .bottom, frame: Rect(x: 0, y: 560, width: 1280, height: 240))])
    }

    @Test("a keyboard visible at start is baseline until it hides, then counts")
    func keyboardAtStart() {
        var classifier = InsetClassifier()
        #expect(classifier.classify(EdgeInsets(bottom: 240), output: Self.output).isEmpty)
        #expect(classifier.classify(.zero, output: Self.output).isEmpty)
        #expect(classifier.baseline == .zero)
        #expect(classifier.classify(EdgeInsets(bottom: 240), output: Self.output).count == 1)
    }

    @Test("top, left and right keyboards span their edge")
    func otherEdges() {
        var classifier = InsetClassifier()
        _ = classifier.classify(.zero, output: Self.output)
        #expect(
            classifier.classify(EdgeInsets(top: 50), output: Self.output)
                == [DockedKeyboard(edge: .top, frame: Rect(x: 0, y: 0, width: 1280, height: 50))])
        #expect(
            classifier.classify(EdgeInsets(left: 200), output: Self.output)
                == [DockedKeyboard(edge: .left, frame: Rect(x: 0, y: 0, width: 200, height: 800))])
        #expect(
            classifier.classify(EdgeInsets(right: 300), output: Self.output)
                == [DockedKeyboard(edge: .right, frame: Rect(x: 980, y: 0, width: 300, height: 800))])
    }

    @Test("two edges growing at once are two keyboards, bottom first")
    func twoEdges() {
        var classifier = InsetClassifier()
        _ = classifier.classify(.zero, output: Self.output)
        #expect(
            classifier.classify(EdgeInsets(bottom: 240, left: 100), output: Self.output).map(\.edge) == [
                .bottom, .left,
            ])
    }

    @Test("frames are global: an output right of another")
    func globalCoordinates() {
        var classifier = InsetClassifier()
        _ = classifier.classify(.zero, output: Self.second)
        #expect(
            classifier.classify(EdgeInsets(bottom: 200), output: Self.second)
                == [DockedKeyboard(edge: .bottom, frame: Rect(x: 1280, y: 340, width: 960, height: 200))])
    }

    @Test("keyboards over a given baseline do not move it")
    func keyboardsWithoutLearning() {
        let shown = InsetClassifier.keyboards(
            EdgeInsets(bottom: 263), baseline: EdgeInsets(bottom: 23), output: Self.output)
        #expect(shown == [DockedKeyboard(edge: .bottom, frame: Rect(x: 0, y: 560, width: 1280, height: 240))])
    }
}
