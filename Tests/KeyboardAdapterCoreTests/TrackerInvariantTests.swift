import Testing

@testable import KeyboardAdapterCore

@Suite("Tracker: several keyboards, ownership, layout, invariants")
struct TrackerInvariantTests {
    @Test("a keyboard and an input-method panel are tracked independently")
    func independentKeyboards() {
        var tracker = Fixture.tracker()
        let panelFrame = Rect(x: 310, y: 399, width: 299, height: 166)
        let out = tracker.run(
            [
                Fixture.observe(Fixture.docked, at: 0),
                Fixture.observe(panelFrame, at: 0.01, keyboard: Fixture.panel),
                Fixture.observe(nil, at: 1, keyboard: Fixture.panel),
            ], until: 2)
        #expect(
            out.steps == [
                Step(event: .willShow, end: Fixture.docked),
                Step(event: .willShow, end: panelFrame, id: Fixture.panel.id),
                Step(event: .didShow, end: Fixture.docked),
                Step(event: .didShow, end: panelFrame, id: Fixture.panel.id),
                Step(event: .willHide, end: Rect(x: 310, y: 800, width: 299, height: 166), id: Fixture.panel.id),
                Step(event: .didHide, end: Rect(x: 310, y: 800, width: 299, height: 166), id: Fixture.panel.id),
            ])
        #expect(out.updates[1].keyboard.kind == .inputMethodPanel)
        #expect(tracker.visibleKeyboards.map(\.keyboard.id) == [Fixture.osk.id])
    }

    @Test("visible keyboards are listed with their current frames")
    func visibleState() {
        var tracker = Fixture.tracker()
        _ = tracker.run([Fixture.observe(Fixture.docked, at: 0)])
        #expect(tracker.visibleKeyboards.map(\.frame) == [Fixture.docked])
        _ = tracker.run([Fixture.observe(nil, at: 0.5)])
        #expect(tracker.visibleKeyboards.isEmpty)
    }

    @Test("isLocal: the backend's word first, else what the app said, else nil")
    func ownership() {
        var silent = Fixture.tracker()
        #expect(silent.run([Fixture.observe(Fixture.docked, at: 0)]).updates[0].isLocal == nil)
        var app = Fixture.tracker()
        app.appTextInputActive = true
        #expect(app.run([Fixture.observe(Fixture.docked, at: 0)]).updates[0].isLocal == true)
        var other = Fixture.tracker()
        other.appTextInputActive = false
        #expect(other.run([Fixture.observe(Fixture.docked, at: 0)]).updates[0].isLocal == false)
        var backend = Fixture.tracker()
        backend.appTextInputActive = true
        #expect(
            backend.run([Fixture.observe(Fixture.docked, at: 0, local: false)]).updates[0].belongsToCurrentApp == false)
    }

    @Test("a layout change of a visible keyboard is its own notification, not a frame change")
    func layoutChange() {
        var tracker = Fixture.tracker()
        let us = InputLayout(name: "English (US)", code: "us")
        let de = InputLayout(name: "German", code: "de")
        let shown = tracker.run([Fixture.observe(Fixture.docked, at: 0, layout: us)], until: 1)
        #expect(shown.updates.allSatisfy { $0.layout == us })
        let out = tracker.run([Fixture.observe(Fixture.docked, at: 2, layout: de)], until: 3)
        #expect(out.updates.isEmpty)
        #expect(
            out == [
                .layoutChanged(
                    KeyboardState(
                        keyboard: Fixture.osk, frame: Fixture.docked, isDocked: true,
                        dockedEdge: .bottom, output: Fixture.screen, layout: de,
                        geometry: .reported))
            ])
    }

    @Test("docking: judged from the frame unless the backend says")
    func dockingJudgement() {
        var judged = Fixture.tracker()
        #expect(judged.run([Fixture.observe(Fixture.docked, at: 0)]).updates[0].isDocked)
        var told = Fixture.tracker()
        #expect(!told.run([Fixture.observe(Fixture.docked, at: 0, docked: false)]).updates[0].isDocked)
        var narrow = Fixture.tracker()
        let centred = Rect(x: 290, y: 595, width: 700, height: 205)
        let update = narrow.run([Fixture.observe(centred, at: 0, docked: true)]).updates[0]
        #expect(update.isDocked && update.dockedEdge == .bottom)
    }

    @Test("no output known: on screen, and the begin frame is the frame moved down by its height")
    func noOutput() {
        var tracker = Fixture.tracker()
        let update = tracker.run([Fixture.observe(Fixture.floating, at: 0, output: nil)]).updates[0]
        #expect(update.beginFrame == Rect(x: 100, y: 255, width: 700, height: 205))
        #expect(update.output == nil)
    }

    @Test("random observation streams keep every invariant", arguments: 0..<20)
    func invariants(seed: Int) {
        var rng = SplitMix(seed: UInt64(seed))
        var tracker = Fixture.tracker(settle: [0, 0.05, 0.2][seed % 3])
        let keyboards = [Fixture.osk, Fixture.panel]
        let frames: [Rect?] = [
            nil, Fixture.docked, Fixture.floating, Fixture.floating.offsetBy(dx: 5, dy: 0),
            Rect(x: 0, y: 700, width: 1280, height: 240), Rect(x: 0, y: 900, width: 1280, height: 240),
        ]
        var out: [TrackerEmission] = []
        var time = 0.0
        for _ in 0..<400 {
            time += Double(rng.next() % 120) / 1000
            let keyboard = keyboards[Int(rng.next() % 2)]
            let frame = frames[Int(rng.next() % UInt64(frames.count))]
            out += tracker.ingest(
                Fixture.observe(frame, at: time, keyboard: keyboard, docked: rng.next() % 2 == 0 ? nil : true))
        }
        out += tracker.hideAll(at: time + 1)
        out += tracker.advance(to: .infinity)
        for keyboard in keyboards {
            let events = out.updates.filter { $0.keyboard.id == keyboard.id }
            var open: KeyboardEvent?
            var shown = false
            var last: (KeyboardEvent, Rect)?
            for update in events {
                if update.event.isWill {
                    #expect(open == nil, "a will while \(String(describing: open)) is open")
                    open = update.event
                    if update.event == .willHide { #expect(shown, "a hide without a show") }
                } else {
                    #expect(open?.completion == update.event, "\(update.event) without its will")
                    open = nil
                    if update.event == .didShow { shown = true }
                    if update.event == .didHide { shown = false }
                }
                if let last {
                    #expect(!(last.0 == update.event && last.1 == update.endFrame), "a duplicate \(update.event)")
                }
                last = (update.event, update.endFrame)
            }
            #expect(open == nil)
            #expect(!shown)
        }
        #expect(tracker.nextDeadline == nil)
    }
}

/// A small deterministic random generator, so a failing seed fails again.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
