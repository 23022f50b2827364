import KeyboardAdapterCore
import Testing

@testable import X11Adapter

/// The window model on a server kept in memory: frames and clients, batches, hiding.
@Suite("X11 window model")
struct WindowTreeTests {
    static let screen = Output(name: "screen", frame: Rect(x: 0, y: 0, width: 1280, height: 800))

    /// What the model reports for xvkbd window `id` shown at `frame` on the whole screen, its own
    /// window at `window` when a window manager's frame makes the two differ.
    static func shown(_ id: WindowID, _ frame: Rect, window: Rect? = nil, output: Output = screen)
        -> KeyboardObservation
    {
        KeyboardObservation(
            time: 0, keyboard: KeyboardIdentity(id: "x11:0x" + String(id, radix: 16), name: "xvkbd"), frame: frame,
            isDocked: false, output: output, windowFrame: window)
    }

    /// What the model reports for xvkbd window `id` once it is unmapped or iconified.
    static func hidden(_ id: WindowID, output: Output = screen) -> KeyboardObservation {
        KeyboardObservation(
            time: 0, keyboard: KeyboardIdentity(id: "x11:0x" + String(id, radix: 16), name: "xvkbd"), frame: nil,
            output: output)
    }

    /// What the model reports for a keyboard shown at `frame` once its window is destroyed: the
    /// last observation without its frame.
    static func destroyed(_ id: WindowID, _ frame: Rect) -> KeyboardObservation {
        var observation = shown(id, frame)
        observation.frame = nil
        return observation
    }

    /// A started world with xvkbd's client 0x200 (300x100) framed by 0x300 at (100, 200), border 1,
    /// 20 pixels of title bar: both mapped and flushed.
    static func framedKeyboard() -> ModelWorld {
        let w = ModelWorld()
        w.createKeyboard(0x200, geometry(0, 0, 300, 100))
        w.create(0x300, geometry(100, 200, 302, 130, border: 1))
        w.reparent(0x200, into: 0x300, x: 1, y: 20)
        w.map(0x200)
        w.map(0x300)
        return w
    }

    @Test(
        "a client reparented into a frame covers the frame (its border included); its own window is at the frame's inner corner plus its place inside"
    )
    func reparentedClient() {
        let w = Self.framedKeyboard()
        // Frame outer corner (100, 200), its border 1, the client at (1, 20) inside.
        #expect(
            w.flush() == [
                Self.shown(
                    0x200, Rect(x: 100, y: 200, width: 304, height: 132),
                    window: Rect(x: 102, y: 221, width: 300, height: 100))
            ])
        let client = w.model.tree.windows[0x200]
        #expect(client?.frame == 0x300)
        #expect(client?.parent == 0x300)
        #expect(client?.offsetInFrame.map { [$0.x, $0.y] } == [2, 21])
        #expect(w.model.tree.windows[0x300]?.client == 0x200)
        #expect(w.server.selected == [0x200, 0x300])
    }

    @Test("moving the frame moves the client by as much, without asking the server anything")
    func frameMoved() {
        let w = Self.framedKeyboard()
        w.flush()
        w.server.clearCounts()
        w.configure(0x300, geometry(400, 50, 302, 130, border: 1))
        #expect(
            w.flush() == [
                Self.shown(
                    0x200, Rect(x: 400, y: 50, width: 304, height: 132),
                    window: Rect(x: 402, y: 71, width: 300, height: 100))
            ])
        #expect(w.server.geometryQueries == 0)
        #expect(w.server.propertyReads.isEmpty)
    }

    @Test(
        "a frame growing around its client is a new frame; a client moved inside it (new decorations) is measured again"
    )
    func clientMovedInsideFrame() {
        let w = Self.framedKeyboard()
        w.flush()
        w.configure(0x300, geometry(100, 200, 310, 140, border: 1))
        let grown = Rect(x: 100, y: 200, width: 312, height: 142)
        #expect(
            w.flush() == [Self.shown(0x200, grown, window: Rect(x: 102, y: 221, width: 300, height: 100))],
            "the frame grew around the client: the client did not move")
        w.server.clearCounts()
        w.configure(0x200, geometry(4, 30, 300, 100))
        #expect(w.flush() == [Self.shown(0x200, grown, window: Rect(x: 105, y: 231, width: 300, height: 100))])
        #expect(w.model.tree.windows[0x200]?.offsetInFrame.map { [$0.x, $0.y] } == [5, 31])
        #expect(w.server.geometryQueries == 3, "one position and two geometry requests")
    }

    @Test("the client's own size travels beside the frame's, and a frame too small to hold it says nothing")
    func frameVersusClientGeometry() {
        let w = Self.framedKeyboard()
        w.flush()
        // Iconify animation: the frame shrinks and moves around the unchanged client.
        w.configure(0x300, geometry(600, 700, 50, 20, border: 1))
        #expect(w.flush() == [])
        w.configure(0x300, geometry(10, 10, 302, 130, border: 1))
        let frame = Rect(x: 10, y: 10, width: 304, height: 132)
        #expect(w.flush() == [Self.shown(0x200, frame, window: Rect(x: 12, y: 31, width: 300, height: 100))])
        w.configure(0x200, geometry(1, 20, 280, 90))
        #expect(w.flush() == [Self.shown(0x200, frame, window: Rect(x: 12, y: 31, width: 280, height: 90))])
    }

    @Test("a client reparented back to the root is a top-level again, at the place the event gives")
    func withdrawnToRoot() {
        let w = Self.framedKeyboard()
        w.flush()
        w.reparent(0x200, into: w.root, x: 50, y: 60)
        #expect(w.flush() == [Self.shown(0x200, Rect(x: 50, y: 60, width: 300, height: 100))])
        #expect(w.model.tree.windows[0x200]?.frame == nil)
        #expect(w.model.tree.windows[0x300]?.client == nil)
        w.configure(0x300, geometry(500, 500, 302, 130, border: 1))
        #expect(w.flush() == [], "the old frame no longer moves the client")
    }

    @Test(
        "_NET_FRAME_EXTENTS, where the window manager states them, grow the client into the frame reported (what the frame window holds beyond them counts for nothing)"
    )
    func frameExtents() {
        let w = Self.framedKeyboard()
        let window = Rect(x: 102, y: 221, width: 300, height: 100)
        // The frame window is 304x132; what the window manager draws is 1 pixel on three sides and
        // a 20-pixel title bar (a window manager may keep invisible resize handles in its frame).
        w.setValues(0x200, "_NET_FRAME_EXTENTS", [1, 1, 20, 1])
        #expect(
            w.flush() == [Self.shown(0x200, Rect(x: 101, y: 201, width: 302, height: 121), window: window)])
        // A move of the frame costs no question: the extents are kept.
        w.server.clearCounts()
        w.configure(0x300, geometry(400, 50, 302, 130, border: 1))
        #expect(
            w.flush() == [
                Self.shown(
                    0x200, Rect(x: 401, y: 51, width: 302, height: 121),
                    window: Rect(x: 402, y: 71, width: 300, height: 100))
            ])
        #expect(w.server.geometryQueries == 0)
        #expect(w.server.propertyReads.isEmpty)
        // Decorations turned off: the window is the whole frame, and no window frame is reported.
        w.setValues(0x200, "_NET_FRAME_EXTENTS", [0, 0, 0, 0])
        #expect(w.flush() == [Self.shown(0x200, Rect(x: 402, y: 71, width: 300, height: 100))])
        // Short or impossible extents say nothing: the frame window's rectangle counts.
        w.setValues(0x200, "_NET_FRAME_EXTENTS", [1, 1, 20])
        let frameWindow = Rect(x: 400, y: 50, width: 304, height: 132)
        let moved = Rect(x: 402, y: 71, width: 300, height: 100)
        #expect(w.flush() == [Self.shown(0x200, frameWindow, window: moved)])
        w.setValues(0x200, "_NET_FRAME_EXTENTS", [1, 1, 40000, 1])
        #expect(w.flush() == [], "still the frame window's rectangle")
        w.setProperty(0x200, "_NET_FRAME_EXTENTS", nil)
        #expect(w.flush() == [])
    }

    @Test(
        "without a frame the window is the frame reported, whatever _NET_FRAME_EXTENTS a window manager left behind; a client moved to a new frame covers that one"
    )
    func framesWithoutWindowManager() {
        // No window manager: a keyboard on the root, with extents a window manager that quit left.
        let w = ModelWorld()
        w.createKeyboard(0x200, geometry(10, 500, 300, 100))
        w.server.setValues(0x200, "_NET_FRAME_EXTENTS", [4, 4, 24, 4])
        w.map(0x200)
        #expect(w.flush() == [Self.shown(0x200, Rect(x: 10, y: 500, width: 300, height: 100))])
        // A window manager starts and frames it (20 pixels of title bar, no extents yet).
        w.create(0x300, geometry(10, 480, 300, 120))
        w.setProperty(0x200, "_NET_FRAME_EXTENTS", nil)
        w.reparent(0x200, into: 0x300, x: 0, y: 20)
        w.map(0x300)
        #expect(
            w.flush() == [
                Self.shown(
                    0x200, Rect(x: 10, y: 480, width: 300, height: 120),
                    window: Rect(x: 10, y: 500, width: 300, height: 100))
            ])
        // It restarts: a new frame, with a taller title bar, takes the client.
        w.create(0x310, geometry(10, 470, 300, 130))
        w.reparent(0x200, into: 0x310, x: 0, y: 30)
        w.destroy(0x300)
        w.map(0x310)
        #expect(
            w.flush() == [
                Self.shown(
                    0x200, Rect(x: 10, y: 470, width: 300, height: 130),
                    window: Rect(x: 10, y: 500, width: 300, height: 100))
            ])
        // It quits, setting extents on its way out, and puts the client back on the root.
        w.setValues(0x200, "_NET_FRAME_EXTENTS", [0, 0, 30, 0])
        w.reparent(0x200, into: w.root, x: 10, y: 500)
        #expect(w.flush() == [Self.shown(0x200, Rect(x: 10, y: 500, width: 300, height: 100))])
    }

    @Test("start finds a client inside an existing frame by its WM_STATE and reports it shown")
    func startFindsFramedClient() {
        let w = ModelWorld(started: false)
        w.server.addWindow(0x300, parent: w.root, geometry: geometry(20, 30, 310, 132, border: 2))
        w.server.addWindow(0x310, parent: 0x300, geometry: geometry(0, 0, 300, 24))
        w.server.addWindow(0x200, parent: 0x300, geometry: geometry(2, 24, 300, 100, border: 3))
        for id: WindowID in [0x300, 0x310, 0x200] { w.server.setMapped(id, true) }
        w.setClass(0x200, "xvkbd\0XVkbd\0")
        w.server.setValues(0x200, "WM_STATE", [1, 0], type: "WM_STATE")
        w.model.start()
        // Frame inner corner (22, 32), the client's outer corner (its border included) 2 and 24
        // pixels further; the frame covers 310 + 2 × 2 by 132 + 2 × 2.
        #expect(
            w.take() == [
                Self.shown(
                    0x200, Rect(x: 20, y: 30, width: 314, height: 136),
                    window: Rect(x: 24, y: 56, width: 300, height: 100))
            ])
        #expect(w.model.tree.windows[0x300]?.client == 0x200)
        #expect(w.model.tree.windows[0x200]?.offsetInFrame.map { [$0.x, $0.y] } == [4, 26])
        #expect(w.server.rootSelected)
        #expect(w.server.selected == [0x200, 0x300])
    }

    @Test("several changes to one window before a flush give one observation, and repeats none")
    func batches() {
        let w = ModelWorld()
        w.showKeyboard(0x200, geometry(10, 500, 300, 100))
        w.configure(0x200, geometry(20, 500, 300, 100))
        w.configure(0x200, geometry(30, 510, 300, 100))
        #expect(w.flush() == [Self.shown(0x200, Rect(x: 30, y: 510, width: 300, height: 100))])
        w.configure(0x200, geometry(40, 500, 300, 100))
        w.configure(0x200, geometry(50, 500, 300, 100))
        w.configure(0x200, geometry(60, 400, 320, 110))
        #expect(w.flush() == [Self.shown(0x200, Rect(x: 60, y: 400, width: 320, height: 110))])
        #expect(w.flush() == [])
        w.configure(0x200, geometry(60, 400, 320, 110))
        w.map(0x200)
        #expect(w.flush() == [], "nothing changed")
        w.configure(0x200, geometry(0, 400, 320, 110))
        w.configure(0x200, geometry(60, 400, 320, 110))
        #expect(w.flush() == [], "moved away and back before the flush: nothing to report")
    }

    @Test("within one batch every hide comes before every show, whatever the order of events")
    func hidesBeforeShows() {
        let w = ModelWorld()
        w.showKeyboard(0x200, geometry(0, 700, 300, 100))
        w.flush()
        w.showKeyboard(0x400, geometry(0, 600, 300, 100))
        w.unmap(0x200)
        #expect(w.flush() == [Self.hidden(0x200), Self.shown(0x400, Rect(x: 0, y: 600, width: 300, height: 100))])
    }

    @Test("unmapping, iconifying or destroying a keyboard hides it; a synthetic unmap does not")
    func hidden() {
        let w = ModelWorld()
        let frame = Rect(x: 10, y: 500, width: 300, height: 100)
        w.showKeyboard(0x200, geometry(10, 500, 300, 100))
        #expect(w.flush() == [Self.shown(0x200, frame)])
        w.model.handle(.unmapped(0x200, synthetic: true))
        #expect(w.flush() == [])
        w.unmap(0x200)
        #expect(w.flush() == [Self.hidden(0x200)])
        w.map(0x200)
        #expect(w.flush() == [Self.shown(0x200, frame)])
        w.setValues(0x200, "WM_STATE", [3, 0], type: "WM_STATE")
        #expect(w.flush() == [Self.hidden(0x200)], "iconic")
        w.setValues(0x200, "WM_STATE", [1, 0], type: "WM_STATE")
        #expect(w.flush() == [Self.shown(0x200, frame)], "normal again")
        w.destroy(0x200)
        #expect(w.flush() == [Self.destroyed(0x200, frame)])
        #expect(w.model.tree.windows[0x200] == nil)
        w.showKeyboard(0x201, geometry(0, 0, 10, 10))
        w.unmap(0x201)
        w.destroy(0x201)
        #expect(w.flush() == [], "never shown: nothing to hide")
    }

    @Test("unmapping the frame hides its client; destroying the frame and client hides it once")
    func frameHidden() {
        let w = Self.framedKeyboard()
        let frame = Rect(x: 100, y: 200, width: 304, height: 132)
        let window = Rect(x: 102, y: 221, width: 300, height: 100)
        #expect(w.flush() == [Self.shown(0x200, frame, window: window)])
        w.unmap(0x300)
        #expect(w.flush() == [Self.hidden(0x200)])
        w.map(0x300)
        #expect(w.flush() == [Self.shown(0x200, frame, window: window)])
        w.destroy(0x300)
        #expect(w.flush() == [Self.destroyed(0x200, frame)])
        #expect(w.model.tree.windows.isEmpty)
    }

    @Test("a broken connection hides every keyboard shown, in window order, once")
    func hideAll() {
        let w = ModelWorld()
        w.showKeyboard(0x500, geometry(0, 0, 10, 10))
        w.showKeyboard(0x200, geometry(0, 0, 20, 20))
        w.showKeyboard(0x300, geometry(0, 0, 30, 30))
        w.flush()
        w.unmap(0x300)
        w.flush()
        w.model.hideAll()
        #expect(
            w.take() == [
                Self.destroyed(0x200, Rect(x: 0, y: 0, width: 20, height: 20)),
                Self.destroyed(0x500, Rect(x: 0, y: 0, width: 10, height: 10)),
            ])
        w.model.hideAll()
        #expect(w.take() == [])
    }

    @Test("new monitors, a new screen size and a new layout observe every keyboard shown again")
    func monitorsAndLayout() {
        let layout = FakeLayoutSource(InputLayout(name: "English (US)", code: "us"))
        let w = ModelWorld(layout: layout)
        w.showKeyboard(0x200, geometry(1300, 500, 300, 100))
        var expected = Self.shown(0x200, Rect(x: 1300, y: 500, width: 300, height: 100))
        expected.layout = InputLayout(name: "English (US)", code: "us")
        #expect(w.flush() == [expected])

        let right = Output(name: "HDMI-1", frame: Rect(x: 1280, y: 0, width: 1024, height: 768))
        w.server.outputs = [Output(name: "eDP-1", frame: Rect(x: 0, y: 0, width: 1280, height: 800)), right]
        w.model.handle(.monitorsChanged)
        expected.output = right
        #expect(w.flush() == [expected])
        w.model.handle(.monitorsChanged)
        #expect(w.flush() == [], "the same monitors")

        layout.next = InputLayout(name: "German", code: "de")
        w.model.handle(.layoutGroupChanged)
        expected.layout = InputLayout(name: "German", code: "de")
        #expect(w.flush() == [expected])
        layout.next = InputLayout(name: "French", code: "fr")
        w.setProperty(w.root, "_XKB_RULES_NAMES", XProperty(type: 31, format: 8, bytes: [], values: []))
        expected.layout = InputLayout(name: "French", code: "fr")
        #expect(w.flush() == [expected])

        w.server.outputs = []
        w.model.handle(.configured(window: w.root, geometry: geometry(0, 0, 1920, 1080), synthetic: false))
        expected.output = Output(name: "screen", frame: Rect(x: 0, y: 0, width: 1920, height: 1080))
        #expect(w.flush() == [expected])
        #expect(w.model.screen == Rect(x: 0, y: 0, width: 1920, height: 1080))
    }

    @Test(
        "a keyboard is local when the window with the X input focus was made by the app's process, as the server says; _NET_WM_PID counts for nothing"
    )
    func ownership() {
        let w = ModelWorld(app: AppIdentity(processIDs: [4242]))
        w.create(0x900, geometry(0, 0, 800, 400))
        w.server.processes[0x900] = 4242
        // Another client's window claiming the app's pid.
        w.create(0x901, geometry(0, 400, 800, 300))
        w.server.processes[0x901] = 5151
        w.server.setValues(0x901, "_NET_WM_PID", [4242])
        // A window whose client the server cannot name (a remote one).
        w.create(0x902, geometry(0, 400, 800, 300))
        w.server.setValues(0x902, "_NET_WM_PID", [4242])
        w.server.focus = 0x900
        w.showKeyboard(0x200, geometry(0, 700, 300, 100))
        var expected = Self.shown(0x200, Rect(x: 0, y: 700, width: 300, height: 100))
        expected.isLocal = true
        #expect(w.flush() == [expected])
        // The focus it was judged by goes with it, for any other app to be judged by.
        #expect(
            w.focuses == [
                FocusedTopLevel(windowIDs: [0x900], processIDs: [4242], knows: [.windows, .processes, .appIDs])
            ])
        w.unmap(0x200)
        w.flush()
        w.server.focus = 0x901
        w.map(0x200)
        expected.isLocal = false
        #expect(w.flush() == [expected], "judged again at the next show, by the focus then")
        w.unmap(0x200)
        w.flush()
        w.server.focus = 0x902
        w.map(0x200)
        expected.isLocal = nil
        #expect(w.flush() == [expected], "no process known: the app cannot be judged by its pid")
        #expect(w.focuses.last == FocusedTopLevel(windowIDs: [0x902], knows: [.windows, .appIDs]))
    }

    @Test("a keyboard is local when the focused window's WM_CLASS class or instance is one of the app's ids")
    func ownershipByClass() {
        let w = ModelWorld(app: AppIdentity(appIDs: ["org.example.Editor"]))
        w.create(0x900, geometry(0, 0, 800, 400))
        w.setClass(0x900, "editor\0org.example.Editor\0")
        w.create(0x901, geometry(0, 400, 800, 300))
        w.setClass(0x901, "org.example.Editor\0Editor\0")
        w.create(0x902, geometry(800, 0, 400, 400))
        w.setClass(0x902, "org.example.Editor.Other\0Other\0")
        var verdicts: [Bool?] = []
        for focus in [0x900, 0x901, 0x902] as [WindowID] {
            w.server.focus = focus
            if verdicts.isEmpty {
                w.showKeyboard(0x200, geometry(0, 700, 300, 100))
            } else {
                w.map(0x200)
            }
            verdicts += w.flush().map(\.isLocal)
            w.unmap(0x200)
            w.flush()
        }
        #expect(verdicts == [true, true, false], "class, instance, neither")
    }
}
