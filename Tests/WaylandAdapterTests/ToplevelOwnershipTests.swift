import KeyboardAdapterCore
import Testing

@testable import WaylandAdapter

/// The pure parts of `isLocal` on wlroots compositors: sway's IPC framing and focus, the verdict
/// at show time, without a compositor.
@Suite("Toplevel ownership")
struct ToplevelOwnershipTests {
    static func feed(_ reader: inout SwayMessageReader, _ bytes: [UInt8]) throws -> [SwayMessage] {
        try bytes.withUnsafeBytes { buffer in
            try Result { () throws(SwayMessageReader.Failure) in try reader.feed(buffer) }.get()
        }
    }

    static func event(_ type: UInt32, _ json: String) -> [UInt8] { SwayMessage.request(type, json) }

    @Test("messages cut anywhere are put back together; one over the bound is read past, not kept")
    func framing() throws {
        var reader = SwayMessageReader(maximumPayload: 64)
        let stream =
            Self.event(SwayMessage.subscribe, #"{"success": true}"#)
            + Self.event(SwayMessage.windowEvent, String(repeating: " ", count: 65))
            + Self.event(SwayMessage.getTree, "{}") + Self.event(7, "")
        var messages: [SwayMessage] = []
        for byte in stream { messages += try Self.feed(&reader, [byte]) }
        #expect(messages.map(\.type) == [SwayMessage.subscribe, SwayMessage.getTree, 7])
        #expect(messages.map { String(decoding: $0.payload, as: UTF8.self) } == [#"{"success": true}"#, "{}", ""])
        #expect(reader.skipped == 1)
        var whole = SwayMessageReader(maximumPayload: 64)
        #expect(try Self.feed(&whole, stream).count == 3)
    }

    @Test("a stream that is not sway's IPC is refused")
    func badMagic() {
        var reader = SwayMessageReader(maximumPayload: 64)
        #expect(throws: SwayMessageReader.Failure.self) { try Self.feed(&reader, Array("i3-ipX\0\0\0\0\0\0\0\0".utf8)) }
    }

    static let firstView = #"{"id": 4, "type": "con", "focused": true, "pid": 4242, "app_id": "org.example.First"}"#

    @Test("the focus from the tree, focus events, the focused view's close; everything else leaves it")
    func focus() {
        var state = SwayFocusState()
        state.handle(SwayMessage(type: SwayMessage.subscribe, payload: Array(#"{"success": true}"#.utf8)))
        #expect(state.subscribed == true)
        let tree = #"""
            {"id": 1, "type": "root", "focused": false, "nodes": [{"id": 2, "type": "output", "nodes": [
              {"id": 3, "type": "workspace", "focused": false, "nodes": [], "floating_nodes": [\#(Self.firstView)]}]}]}
            """#
        state.handle(SwayMessage(type: SwayMessage.getTree, payload: Array(tree.utf8)))
        #expect(state.treeRead && state.focus == SwayFocus(appID: "org.example.First", pid: 4242))

        func window(_ change: String, _ container: String) {
            let json = #"{ "change": "\#(change)", "container": \#(container) }"#
            state.handle(SwayMessage(type: SwayMessage.windowEvent, payload: Array(json.utf8)))
        }
        let second = #"{"id": 5, "pid": 77, "app_id": "org.example.Second"}"#
        window("new", second)
        window("title", second)
        #expect(state.focus?.pid == 4242, "new and title are no focus changes")
        window("focus", second)
        #expect(state.focus == SwayFocus(appID: "org.example.Second", pid: 77))
        window("close", Self.firstView)
        #expect(state.focus?.pid == 77, "another view closed")
        window("close", second)
        #expect(state.focus == nil)
        window("focus", #"{"id": 6, "pid": 88, "app_id": "\#(String(repeating: "a", count: 257))"}"#)
        #expect(state.focus == SwayFocus(appID: nil, pid: 88), "an app id over the bound is kept as none")

        let before = state.unreadable
        state.handle(SwayMessage(type: SwayMessage.windowEvent, payload: Array(#"{"change": "focus"}"#.utf8)))
        state.handle(
            SwayMessage(type: SwayMessage.windowEvent, payload: Array(String(repeating: "[", count: 300).utf8)))
        state.handle(SwayMessage(type: SwayMessage.getTree, payload: [0xFF, 0xFE]))
        #expect(state.unreadable == before + 3)
        #expect(state.focus == SwayFocus(appID: nil, pid: 88), "what does not parse changes nothing")
    }

    @Test("the change of a window event read from its first member, else nothing")
    func leadingChange() {
        #expect(SwayFocusState.leadingChange(Array(#"{ "change": "title", "container": {} }"#.utf8)) == "title")
        #expect(SwayFocusState.leadingChange(Array(#"{"change":"fullscreen_mode"}"#.utf8)) == "fullscreen_mode")
        #expect(SwayFocusState.leadingChange(Array(#"{"container": {}, "change": "title"}"#.utf8)) == nil)
        #expect(SwayFocusState.leadingChange(Array(#"{"change": "ti\u0074le"}"#.utf8)) == nil)
        #expect(
            SwayFocusState.leadingChange(Array((String(repeating: " ", count: 60) + #"{"change": "new"}"#).utf8)) == nil
        )
    }

    static let app = AppIdentity(processIDs: [4242], appIDs: ["org.example.First"])

    @Test("the verdict from the activated toplevels, the IPC's pid and what the identity names")
    func verdicts() {
        func judge(
            _ activation: ForeignToplevels.Activation?, ipc: Bool = false, focus: SwayFocus? = nil,
            app: AppIdentity = Self.app
        ) -> Bool? {
            app.isLocal(given: ShowOwnership.focus(activation: activation, swayIPC: ipc, swayFocus: focus))
        }
        let pidOnly = AppIdentity(processIDs: [4242])
        let first = SwayFocus(appID: "org.example.First", pid: 4242)
        #expect(judge(nil) == nil, "no foreign-toplevel manager")
        #expect(judge(.toplevels(["org.example.First"])) == true)
        #expect(judge(.toplevels(["org.example.First.desktop"])) == true, "a desktop file id")
        #expect(judge(.toplevels(["org.example.Other", nil])) == false)
        #expect(judge(.noneActivated) == false)
        #expect(judge(.unknown) == nil)
        #expect(judge(.toplevels(["org.example.First"]), app: AppIdentity(windowIDs: [1])) == nil, "nothing comparable")
        #expect(judge(.toplevels(["org.example.First"]), app: pidOnly) == nil, "pids without the IPC")
        #expect(judge(.toplevels(["org.example.First"]), ipc: true, focus: first, app: pidOnly) == true)
        #expect(judge(.noneActivated, ipc: true, focus: nil, app: pidOnly) == false)
        #expect(
            judge(.toplevels(["org.example.Other"]), ipc: true, focus: first, app: pidOnly) == nil,
            "the IPC's focus lags the compositor's: its pid is not the activated toplevel's")
        #expect(
            judge(
                .toplevels(["org.example.Other"]), ipc: true, focus: SwayFocus(appID: "org.example.Other", pid: 9),
                app: pidOnly) == false)
    }

    @Test("judged once per show, kept while shown and on the hide, judged again at the next show")
    func oncePerShow() {
        var verdicts = LocalVerdicts()
        var answer: Bool? = true
        var asked = 0
        func stamp(_ frame: Rect?) -> Bool? {
            let observation = KeyboardObservation(
                time: 0, keyboard: KeyboardIdentity(id: "wayland:HEADLESS-1:bottom", name: "docked keyboard"),
                frame: frame)
            let app = AppIdentity(appIDs: ["org.example.First"])
            let focus = { () -> FocusedTopLevel? in
                asked += 1
                return answer.map { FocusedTopLevel(appIDs: [$0 ? "org.example.First" : "other"], knows: [.appIDs]) }
            }
            return verdicts.stamp(observation, app: { app }, focus: focus).isLocal
        }
        let strip = Rect(x: 0, y: 560, width: 1280, height: 240)
        #expect(stamp(strip) == true)
        answer = false
        #expect(stamp(Rect(x: 0, y: 500, width: 1280, height: 300)) == true, "a frame change keeps the show's verdict")
        #expect(stamp(nil) == true, "the hide carries it too")
        #expect(stamp(strip) == false)
        answer = nil
        #expect(stamp(nil) == false)
        #expect(stamp(strip) == nil)
        #expect(stamp(strip) == nil, "an unknown verdict is kept as well")
        #expect(asked == 3)
    }
}
