import KeyboardAdapterCore
import Testing

@testable import KeyboardServices

/// The KWin script's reports, read with bounds: what KWin's JavaScript sends is taken, anything
/// else refused.
@Suite("CompanionMessage")
struct CompanionMessageTests {
    @Test("the script's four reports")
    func reports() throws {
        #expect(try CompanionMessage(#"{"kind":"hello","api":6}"#) == .hello(api: 6))
        #expect(
            try CompanionMessage(#"{"kind":"panel","id":"{1f}","frame":[0,488,1280,312],"output":"Virtual-0"}"#)
                == .panel(
                    id: "{1f}",
                    CompanionReport.Panel(frame: Rect(x: 0, y: 488, width: 1280, height: 312), outputName: "Virtual-0"))
        )
        #expect(try CompanionMessage(#"{"kind":"panelGone","id":"{1f}"}"#) == .panelGone(id: "{1f}"))
        #expect(
            try CompanionMessage(#"{"kind":"focus","pid":4242,"appIDs":["org.example.Chat","chat"]}"#)
                == .focus(CompanionReport.Focus(pid: 4242, appIDs: ["org.example.Chat", "chat"])))
        #expect(try CompanionMessage(#"{"kind":"focus","pid":null,"appIDs":[]}"#) == .focus(nil))
    }

    @Test(
        "refused: wrong kinds, types, sizes and depths",
        arguments: [
            "", "[]", "null", #"{"kind":"launch"}"#, #"{"kind":"hello"}"#, #"{"kind":"hello","api":"6"}"#,
            #"{"kind":"panel","id":"a","frame":[0,0,0,10]}"#, #"{"kind":"panel","id":"a","frame":[0,0,10]}"#,
            #"{"kind":"panel","id":"a","frame":[0,0,1e300,10]}"#,
            #"{"kind":"panel","id":"a","frame":[0,0,4000000,10]}"#,
            #"{"kind":"panel","frame":[0,0,10,10]}"#, #"{"kind":"focus","pid":-1,"appIDs":[]}"#,
            #"{"kind":"focus","pid":1,"appIDs":[[[[["deep"]]]]]}"#,
            #"{"kind":"panelGone","id":""# + String(repeating: "x", count: 300) + #""}"#,
            #"{"kind":"hello","api":6,"pad":""# + String(repeating: "x", count: 5000) + #""}"#,
        ])
    func refused(_ text: String) {
        #expect(throws: (any Error).self) { try CompanionMessage(text) }
    }

    @Test("app ids: at most four, each at most 256 bytes, empty ones dropped")
    func boundedAppIDs() throws {
        let long = String(repeating: "a", count: 257)
        let message = try CompanionMessage(
            #"{"kind":"focus","pid":1,"appIDs":["","\#(long)","a","b","c","d","e"]}"#)
        #expect(message == .focus(CompanionReport.Focus(pid: 1, appIDs: ["a", "b"])))
    }
}
