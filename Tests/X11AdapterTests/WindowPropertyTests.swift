import CX11
import KeyboardAdapterCore
import Testing

@testable import X11Adapter

/// Properties and geometry as hostile clients write them, and rules deciding what is a keyboard,
/// on a server kept in memory.
@Suite("X11 window properties and rules")
struct WindowPropertyTests {
    /// A fake server with one plain window, 0x200.
    static func server() -> FakeWindowServer {
        let server = FakeWindowServer()
        server.addWindow(0x200, parent: server.root, geometry: geometry(0, 0, 10, 10))
        return server
    }

    static func text(_ bytes: [UInt8], type: String = "STRING") -> @Sendable (FakeWindowServer) -> XProperty {
        { XProperty(type: $0.atom(type), format: 8, bytes: bytes, values: []) }
    }

    static func values(_ values: [UInt], format: Int32 = 32) -> @Sendable (FakeWindowServer) -> XProperty {
        { XProperty(type: $0.atom("CARDINAL"), format: format, bytes: [], values: values) }
    }

    @Test("the constants written out for the model are Xlib's")
    func constants() {
        #expect(PredefinedAtom.string == AtomID(XA_STRING))
        #expect(PredefinedAtom.wmClass == AtomID(XA_WM_CLASS))
        #expect(FollowedProperties.iconicState == UInt(IconicState))
    }

    @Test("a 1 MiB WM_NAME costs one bounded read and is cut at 4096 bytes")
    func hugeTitle() {
        let server = Self.server()
        server.setText(0x200, "WM_NAME", Array(repeating: UInt8(ascii: "k"), count: 1 << 20), type: "STRING")
        let description = server.describe(0x200, overrideRedirect: false)
        #expect(description.title == String(repeating: "k", count: 4096))
        let wmName = server.atom("WM_NAME")
        #expect(server.propertyReads.filter { $0.atom == wmName }.map(\.maxItems) == [1024])
    }

    static let classCases: [([UInt8]?, Int32, String?, String?)] = [
        (Array("xvkbd\0XVkbd\0".utf8), 8, "xvkbd", "XVkbd"),
        (Array("xvkbdXVkbd".utf8), 8, "xvkbdXVkbd", ""),
        (Array("a\0b\0c\0d".utf8), 8, "a", "b"),
        ([], 8, "", ""),
        ([0x4B, 0xE9, 0, 0xFF, 0], 8, "K\u{E9}", "\u{FF}"),
        (Array("xvkbd\0XVkbd\0".utf8), 32, nil, nil),
        (nil, 8, nil, nil),
    ]

    @Test("WM_CLASS without NUL, with extra fields, empty, in Latin-1 or in the wrong format", arguments: classCases)
    func windowClass(bytes: [UInt8]?, format: Int32, instance: String?, windowClass: String?) {
        let server = Self.server()
        let property = bytes.map {
            format == 8
                ? XProperty(type: PredefinedAtom.string, format: 8, bytes: $0, values: [])
                : XProperty(type: PredefinedAtom.string, format: format, bytes: [], values: $0.map { UInt($0) })
        }
        server.setProperty(0x200, "WM_CLASS", property)
        let description = server.describe(0x200, overrideRedirect: false)
        #expect(description.instance == instance)
        #expect(description.windowClass == windowClass)
    }

    @Test("titles: invalid UTF-8 is replaced, STRING is Latin-1, a wrong format falls back to WM_NAME")
    func titles() {
        let server = Self.server()
        server.setText(0x200, "_NET_WM_NAME", [0x66, 0xFF, 0x6F, 0])
        #expect(server.describe(0x200, overrideRedirect: false).title == "f\u{FFFD}o")
        server.setText(0x200, "_NET_WM_NAME", [0x4B, 0xE9], type: "STRING")
        #expect(server.describe(0x200, overrideRedirect: false).title == "K\u{E9}")
        server.setText(0x200, "_NET_WM_NAME", Array("Key\0board".utf8))
        #expect(server.describe(0x200, overrideRedirect: false).title == "Key\u{0}board")
        server.setValues(0x200, "_NET_WM_NAME", [0x41, 0x42])
        server.setText(0x200, "WM_NAME", Array("Keyboard".utf8), type: "STRING")
        #expect(server.describe(0x200, overrideRedirect: false).title == "Keyboard")
        server.setProperty(0x200, "WM_NAME", nil)
        #expect(server.describe(0x200, overrideRedirect: false).title == nil)
    }

    static let numberCases: [(String, @Sendable (FakeWindowServer) -> XProperty, String)] = [
        ("_NET_WM_PID", values([1234, 99]), "pid 1234"),
        ("_NET_WM_PID", values([1 << 40]), "pid nil"),
        ("_NET_WM_PID", values([UInt.max]), "pid nil"),
        ("_NET_WM_PID", values([]), "pid nil"),
        ("_NET_WM_PID", text(Array("1234".utf8)), "pid nil"),
        ("_NET_WM_PID", values([1234], format: 16), "pid nil"),
        ("WM_STATE", values([3, 0]), "iconic"),
        ("WM_STATE", values([1, 0]), "normal"),
        ("WM_STATE", text([3, 0, 0, 0]), "normal"),
        ("WM_HINTS", values([1, 0]), "input false"),
        ("WM_HINTS", values([1, 7]), "input true"),
        ("WM_HINTS", values([1]), "input nil"),
        ("WM_HINTS", values([0, 0]), "input nil"),
        ("WM_HINTS", text([1, 0, 0, 0, 0, 0, 0, 0]), "input nil"),
        ("ONSCREEN_KEYBOARD", values([1]), "onscreen 1"),
        ("ONSCREEN_KEYBOARD", values([1], format: 16), "onscreen nil"),
        ("ONSCREEN_KEYBOARD", values([]), "onscreen nil"),
    ]

    @Test("numbers too large, items missing and wrong formats read as absent", arguments: numberCases)
    func numbers(name: String, property: @Sendable (FakeWindowServer) -> XProperty, expected: String) {
        let server = Self.server()
        server.setProperty(0x200, name, property(server))
        let description = server.describe(0x200, overrideRedirect: false)
        let keyboard = server.keyboardProperties(of: 0x200)
        let read =
            switch name {
            case "_NET_WM_PID": "pid " + (keyboard.pid.map { "\($0)" } ?? "nil")
            case "WM_STATE": keyboard.isIconic ? "iconic" : "normal"
            case "WM_HINTS": "input " + (description.acceptsInput.map { "\($0)" } ?? "nil")
            default: "onscreen " + (description.onscreenKeyboard.map { "\($0)" } ?? "nil")
            }
        #expect(read == expected)
    }

    @Test("of thousands of window types only the first 16 are read, and unknown atoms are dropped")
    func windowTypeStorm() {
        let server = Self.server()
        let dock = UInt(server.atom("_NET_WM_WINDOW_TYPE_DOCK"))
        let unknown = (0..<4999).map { UInt(0x0100_0000 + $0) }
        server.setValues(0x200, "_NET_WM_WINDOW_TYPE", [dock] + unknown, type: "ATOM")
        #expect(server.describe(0x200, overrideRedirect: false).windowTypes == ["_NET_WM_WINDOW_TYPE_DOCK"])
        let types = server.atom("_NET_WM_WINDOW_TYPE")
        #expect(server.propertyReads.filter { $0.atom == types }.map(\.maxItems) == [16])
        server.setValues(0x200, "_NET_WM_WINDOW_TYPE", Array(unknown.prefix(16)) + [dock], type: "ATOM")
        #expect(server.describe(0x200, overrideRedirect: false).windowTypes == [])
    }

    @Test("extreme and negative geometry is reported without overflow, sizes never below zero")
    func hostileGeometry() {
        let w = ModelWorld()
        let max = Int(Int32.max)
        let min = Int(Int32.min)
        w.showKeyboard(0x200, geometry(.min, .min, .max, .max, border: .max))
        #expect(w.flush() == [WindowTreeTests.shown(0x200, Rect(x: min, y: min, width: max, height: max))])
        w.configure(0x200, geometry(-50, -60, -5, -7, border: -3))
        #expect(w.flush() == [WindowTreeTests.shown(0x200, Rect(x: -50, y: -60, width: 0, height: 0))])
        w.model.handle(.configured(window: 0x999, geometry: geometry(.max, .max, .max, .max), synthetic: false))
        w.model.handle(.reparented(window: 0x998, parent: 0x997, x: .min, y: .max))
        w.model.handle(.destroyed(0x996))
        #expect(w.flush() == [], "events on windows nobody follows")

        // A frame and its client as far out as 32 bits go: the offsets and the frame's size (its
        // borders included) add up in 64 bits.
        w.create(0x300, geometry(.max, .max, .max, .max, border: .max))
        w.createKeyboard(0x400, geometry(0, 0, .max, .max))
        w.reparent(0x400, into: 0x300, x: .max, y: .max)
        w.map(0x400)
        w.map(0x300)
        #expect(
            w.flush() == [
                WindowTreeTests.shown(
                    0x400, Rect(x: max, y: max, width: 3 * max, height: 3 * max),
                    window: Rect(x: 3 * max, y: 3 * max, width: max, height: max))
            ])
    }

    @Test("a window becomes a keyboard when its class starts matching a rule, and stops when it no longer does")
    func classChanges() {
        let w = ModelWorld()
        w.create(0x200, geometry(10, 500, 300, 100))
        w.setClass(0x200, "xterm\0XTerm\0")
        w.map(0x200)
        #expect(w.flush() == [])
        w.setText(0x200, "WM_CLASS", "xvkbd\0XVkbd\0", type: "STRING")
        let frame = Rect(x: 10, y: 500, width: 300, height: 100)
        #expect(w.flush() == [WindowTreeTests.shown(0x200, frame)])
        w.setText(0x200, "WM_CLASS", "xterm\0XTerm\0", type: "STRING")
        #expect(w.flush() == [WindowTreeTests.destroyed(0x200, frame)])
        #expect(w.model.tree.windows[0x200]?.rule == nil)

        // A window never mapped is not described: its changes are not even read.
        w.create(0x300, geometry(0, 0, 10, 10))
        w.server.clearCounts()
        w.setText(0x300, "WM_CLASS", "xvkbd\0XVkbd\0", type: "STRING")
        #expect(w.server.propertyReads.isEmpty)
        #expect(w.flush() == [])
    }

    @Test("rules match by title, by override-redirect and by onboard's ONSCREEN_KEYBOARD; the pid is carried")
    func rules() {
        let florence = KeyboardRule(name: "florence", title: "Florence")
        let w = ModelWorld(rules: KeyboardRules([florence] + KeyboardRules.builtIn.rules))
        w.create(0x200, geometry(0, 600, 400, 200))
        w.server.setText(0x200, "_NET_WM_NAME", Array("Florence".utf8))
        w.server.setValues(0x200, "_NET_WM_PID", [777])
        w.map(0x200)
        // Caribou's keyboard is override-redirect; its top-level of the same class is not.
        let caribouClass = Array("antler-keyboard\0Main.py\0".utf8)
        w.create(0x300, geometry(0, 0, 400, 100), overrideRedirect: true)
        w.server.setText(0x300, "WM_CLASS", caribouClass, type: "STRING")
        w.map(0x300)
        w.create(0x310, geometry(0, 0, 400, 100))
        w.server.setText(0x310, "WM_CLASS", caribouClass, type: "STRING")
        w.map(0x310)
        w.create(0x400, geometry(0, 300, 500, 150))
        w.setClass(0x400, "onboard\0Onboard\0")
        w.server.setValues(0x400, "ONSCREEN_KEYBOARD", [1])
        w.map(0x400)
        let seen = w.flush()
        #expect(seen.map(\.keyboard.name) == ["florence", "caribou", "onboard"])
        #expect(seen.map(\.keyboard.pid) == [777, nil, nil])
        #expect(seen.map(\.keyboard.id) == ["x11:0x200", "x11:0x300", "x11:0x400"])

        w.setProperty(0x400, "ONSCREEN_KEYBOARD", nil)
        #expect(w.flush().map(\.keyboard.name) == ["onboard"])
        #expect(w.model.tree.windows[0x400]?.rule == nil)
    }

    @Test("a valid strut docks a keyboard at its edge; a garbled one does not")
    func struts() {
        let w = ModelWorld()
        w.createKeyboard(0x200, geometry(100, 700, 300, 100))
        w.server.setValues(0x200, "_NET_WM_STRUT_PARTIAL", [0, 0, 0, 100, 0, 0, 0, 0, 0, 0, 100, 399])
        w.map(0x200)
        var expected = WindowTreeTests.shown(0x200, Rect(x: 100, y: 700, width: 300, height: 100))
        expected.dockedEdge = .bottom
        expected.isDocked = true
        #expect(w.flush() == [expected])
        // matchbox-keyboard's int[12] written as longs: huge items.
        w.setValues(0x200, "_NET_WM_STRUT_PARTIAL", [0, 0, 0, 1 << 40, 0, 0, 0, 0, 0, 0, 100, 399])
        expected.dockedEdge = nil
        expected.isDocked = false
        #expect(w.flush() == [expected])
        w.setValues(0x200, "_NET_WM_STRUT", [0, 0, 0, 100])
        expected.dockedEdge = .bottom
        expected.isDocked = true
        #expect(w.flush() == [expected], "the plain strut, when the partial one is not valid")
    }
}
