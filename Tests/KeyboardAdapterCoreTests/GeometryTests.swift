import Testing

@testable import KeyboardAdapterCore

@Suite("Geometry")
struct GeometryTests {
    let window = Rect(x: 240, y: 100, width: 800, height: 600)

    @Test("the keyboard frame in the window's own coordinates")
    func frameInWindow() {
        #expect(
            WindowGeometry.keyboardFrame(Fixture.docked, inWindow: window)
                == Rect(x: -240, y: 460, width: 1280, height: 240))
    }

    @Test("the covered part, in the window's coordinates")
    func coveredRect() {
        #expect(
            WindowGeometry.coveredRect(by: Fixture.docked, inWindow: window)
                == Rect(x: 0, y: 460, width: 800, height: 140))
        #expect(WindowGeometry.coveredRect(by: Rect(x: 0, y: 0, width: 100, height: 100), inWindow: window) == nil)
    }

    @Test("a docked keyboard over the window's bottom gives a bottom inset")
    func bottomInset() {
        #expect(WindowGeometry.insets(for: Fixture.docked, inWindow: window) == EdgeInsets(bottom: 140))
    }

    @Test("a keyboard at the top gives a top inset")
    func topInset() {
        #expect(
            WindowGeometry.insets(for: Rect(x: 0, y: 0, width: 1280, height: 205), inWindow: window)
                == EdgeInsets(top: 105))
    }

    @Test("a keyboard along the left or right edge gives a side inset")
    func sideInsets() {
        #expect(
            WindowGeometry.insets(for: Rect(x: 0, y: 0, width: 300, height: 800), inWindow: window)
                == EdgeInsets(left: 60))
        #expect(
            WindowGeometry.insets(for: Rect(x: 1000, y: 0, width: 280, height: 800), inWindow: window)
                == EdgeInsets(right: 40))
    }

    @Test("a keyboard on another output, or beside the window, gives zero insets")
    func otherOutput() {
        #expect(WindowGeometry.insets(for: Rect(x: 1280, y: 840, width: 1920, height: 240), inWindow: window) == .zero)
    }

    @Test("a small floating keyboard in the middle pushes content away from the nearer edge")
    func floatingPatch() {
        #expect(
            WindowGeometry.insets(for: Rect(x: 400, y: 500, width: 300, height: 100), inWindow: window)
                == EdgeInsets(bottom: 200))
        #expect(
            WindowGeometry.insets(for: Rect(x: 400, y: 150, width: 300, height: 100), inWindow: window)
                == EdgeInsets(top: 150))
    }

    @Test("several keyboards: the largest inset per edge")
    func severalKeyboards() {
        let panel = Rect(x: 300, y: 500, width: 300, height: 166)
        #expect(WindowGeometry.insets(for: [Fixture.docked, panel], inWindow: window) == EdgeInsets(bottom: 200))
    }

    @Test("docked edges need a touch and a full span")
    func dockedEdges() {
        let screen = Fixture.screen.frame
        #expect(Fixture.docked.dockedEdge(in: screen) == .bottom)
        #expect(Rect(x: 0, y: 0, width: 1280, height: 50).dockedEdge(in: screen) == .top)
        #expect(Rect(x: 0, y: 0, width: 200, height: 800).dockedEdge(in: screen) == .left)
        #expect(Rect(x: 1080, y: 0, width: 200, height: 800).dockedEdge(in: screen) == .right)
        #expect(Fixture.floating.dockedEdge(in: screen) == nil)
        #expect(Rect(x: 290, y: 595, width: 700, height: 205).dockedEdge(in: screen) == nil)
    }

    @Test("frames moved off screen through each edge")
    func offScreen() {
        let screen = Fixture.screen.frame
        let frame = Rect(x: 10, y: 20, width: 100, height: 50)
        #expect(frame.movedOffScreen(through: .bottom, of: screen) == Rect(x: 10, y: 800, width: 100, height: 50))
        #expect(frame.movedOffScreen(through: .top, of: screen) == Rect(x: 10, y: -50, width: 100, height: 50))
        #expect(frame.movedOffScreen(through: .left, of: screen) == Rect(x: -100, y: 20, width: 100, height: 50))
        #expect(frame.movedOffScreen(through: .right, of: screen) == Rect(x: 1280, y: 20, width: 100, height: 50))
        #expect(!frame.movedOffScreen(through: .right, of: screen).intersects(screen))
    }

    @Test("rectangle basics: intersection, union, containment")
    func rectBasics() {
        let a = Rect(x: 0, y: 0, width: 10, height: 10)
        let b = Rect(x: 5, y: 5, width: 10, height: 10)
        #expect(a.intersection(b) == Rect(x: 5, y: 5, width: 5, height: 5))
        #expect(a.intersection(Rect(x: 10, y: 0, width: 5, height: 5)) == nil)
        #expect(a.union(b) == Rect(x: 0, y: 0, width: 15, height: 15))
        #expect(a.union(.zero) == a)
        #expect(a.contains(Rect(x: 1, y: 1, width: 2, height: 2)) && !a.contains(b))
        #expect(a.description == "0,0 10x10")
    }
}
