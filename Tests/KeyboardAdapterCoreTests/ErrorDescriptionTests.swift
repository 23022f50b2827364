import Foundation
import KeyboardAdapterTesting
import KeyboardBackendInterface
import KeyboardJSON
import Testing

@testable import KeyboardAdapterCore
@testable import KeyboardReplay

/// Every public error of the core, as an app sees it: `localizedDescription` (Foundation's, as apps
/// call it) gives the same human line as `description`.
@Suite("Error descriptions")
struct ErrorDescriptionTests {
    /// What an app that catches `any Error` reads.
    func shown(_ error: any Error) -> String { error.localizedDescription }

    @Test("a backend failure reads 'backend: reason'")
    func backendFailure() {
        let failure = BackendFailure(backend: "x11", reason: "lost the connection to the X server :1")
        #expect(shown(failure) == "x11: lost the connection to the X server :1")
        #expect(shown(failure) == failure.description)
    }

    @Test("a keyboard control error names the keyboard or the reason")
    func keyboardControl() {
        #expect(shown(KeyboardControlError.notVisible("x11:0x400002")) == "the keyboard x11:0x400002 is not visible")
        #expect(shown(KeyboardControlError.notVisible("")) == "no keyboard is visible")
        #expect(
            shown(KeyboardControlError.unsupported("the replay backend cannot hide keyboards"))
                == "the replay backend cannot hide keyboards")
        #expect(shown(KeyboardControlError.failed("the request failed")) == "the request failed")
    }

    @Test("a selection error names every backend and why it cannot run")
    func backendSelection() throws {
        let registry = BackendRegistry()
        registry.register(
            .init(name: "x11", hint: BackendSessionHint(variables: ["DISPLAY"])) { InMemoryBackend(name: "x11") })
        registry.register(
            .init(name: "wayland", hint: BackendSessionHint(variables: ["WAYLAND_DISPLAY"])) {
                InMemoryBackend(name: "wayland")
            })
        let none = #expect(throws: BackendSelectionError.self) { try registry.select(environment: [:]) }
        #expect(
            try shown(#require(none))
                == "no display server is reachable: x11: DISPLAY is not set; wayland: WAYLAND_DISPLAY is not set")
        let unknown = #expect(throws: BackendSelectionError.self) {
            try registry.select(name: "quartz", environment: [:])
        }
        #expect(try shown(#require(unknown)) == "unknown backend 'quartz' (known: x11, wayland)")
        #expect(
            shown(BackendSelectionError.unavailable(name: "wayland", reason: "no zwlr_layer_shell_v1"))
                == "backend 'wayland' is unavailable: no zwlr_layer_shell_v1")
    }

    @Test("a recording's line error names the line and the reason")
    func lineError() throws {
        let error = #expect(throws: ObservationCodec.LineError.self) {
            try ObservationCodec.decode("{\"t\":", lineNumber: 9, previousTime: nil)
        }
        #expect(try shown(#require(error)) == "line 9: not valid JSON")
    }

    @Test("a JSON parser failure reads as its reason")
    func parserFailure() throws {
        let error = #expect(throws: JSONParser.Failure.self) {
            try JSONParser(maximumDepth: 2).parse("[[[1]]]"[...])
        }
        let failure = try #require(error)
        #expect(!failure.reason.isEmpty)
        #expect(shown(failure) == failure.reason)
        #expect(!shown(failure).contains("could not be completed"))
    }
}
