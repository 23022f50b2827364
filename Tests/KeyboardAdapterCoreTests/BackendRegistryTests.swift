@_spi(BackendRun) import KeyboardBackendInterface
import Testing

@testable import KeyboardAdapterCore

/// A backend that is available or not, as told; for selection tests only.
final class FixedBackend: KeyboardBackend {
    let name: String
    let reason: String?
    init(name: String, unavailable reason: String? = nil) {
        self.name = name
        self.reason = reason
    }
    var capabilities: BackendCapabilities { [] }
    func availability() -> BackendAvailability { reason.map { .unavailable(reason: $0) } ?? .available(detail: "ok") }
    func open(in context: LoopContext, sink: any ObservationSink, app: AppIdentity) throws -> any BackendConnection {
        CallbackConnection()
    }
}

@Suite("Backend selection")
struct BackendRegistryTests {
    func registry(x11: String? = nil, wayland: String? = nil) -> BackendRegistry {
        let registry = BackendRegistry()
        registry.register(
            .init(name: "x11", hint: .init(variables: ["DISPLAY"], sessionType: "x11")) {
                FixedBackend(name: "x11", unavailable: x11)
            })
        registry.register(
            .init(name: "wayland", hint: .init(variables: ["WAYLAND_DISPLAY"], sessionType: "wayland", priority: 1)) {
                FixedBackend(name: "wayland", unavailable: wayland)
            })
        return registry
    }

    @Test(
        "the environment picks the backend",
        arguments: [
            (["DISPLAY": ":0"], "x11"),
            (["WAYLAND_DISPLAY": "wayland-1"], "wayland"),
            (["DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-1"], "wayland"),
            (["DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-1", "XDG_SESSION_TYPE": "x11"], "x11"),
            (["DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-1", "XDG_SESSION_TYPE": "wayland"], "wayland"),
            (["DISPLAY": ":0", "KEYBOARD_ADAPTER_BACKEND": "wayland"], "wayland"),
        ])
    func environment(environment: [String: String], expected: String) throws {
        #expect(try registry().select(environment: environment).name == expected)
    }

    @Test(
        "a backend that fits every session type (GNOME's) is tried first in Xorg and Wayland sessions, by priority",
        arguments: ["x11", "wayland", nil] as [String?])
    func anySessionType(session: String?) throws {
        let registry = registry()
        registry.register(
            .init(name: "gnome", hint: .init(variables: ["DBUS_SESSION_BUS_ADDRESS"], sessionType: nil, priority: 3)) {
                FixedBackend(name: "gnome")
            })
        var environment = ["DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-1", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/b"]
        environment["XDG_SESSION_TYPE"] = session
        #expect(try registry.select(environment: environment).name == "gnome")
        // Unavailable (not a GNOME session): the session's own backend follows.
        registry.register(
            .init(name: "gnome", hint: .init(variables: ["DBUS_SESSION_BUS_ADDRESS"], sessionType: nil, priority: 3)) {
                FixedBackend(name: "gnome", unavailable: "no GNOME Shell")
            })
        #expect(try registry.select(environment: environment).name == (session ?? "wayland"))
    }

    @Test("an explicit name wins over the environment")
    func explicitName() throws {
        #expect(try registry().select(name: "x11", environment: ["KEYBOARD_ADAPTER_BACKEND": "wayland"]).name == "x11")
    }

    @Test("an unknown name is an error that lists the known backends")
    func unknownName() {
        #expect(throws: BackendSelectionError.unknownBackend(name: "quartz", known: ["x11", "wayland"])) {
            try registry().select(name: "quartz", environment: [:])
        }
    }

    @Test("a chosen backend that cannot run says why")
    func chosenUnavailable() {
        let error = #expect(throws: BackendSelectionError.self) {
            try registry(wayland: "compositor lacks zwlr_layer_shell_v1").select(name: "wayland", environment: [:])
        }
        #expect(error?.description == "backend 'wayland' is unavailable: compositor lacks zwlr_layer_shell_v1")
    }

    @Test("an unavailable preferred backend falls back to the next candidate")
    func fallback() throws {
        let environment = ["DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"]
        #expect(try registry(wayland: "no layer shell").select(environment: environment).name == "x11")
    }

    @Test("when none fits, one error lists every backend and why")
    func noneAvailable() {
        let error = #expect(throws: BackendSelectionError.self) {
            try registry(x11: "cannot open display :9").select(environment: ["DISPLAY": ":9"])
        }
        #expect(
            error?.description
                == "no keyboard backend is available: x11: cannot open display :9; wayland: WAYLAND_DISPLAY is not set")
    }

    @Test("no session variable set, or no server answering: no display server")
    func noDisplayServer() {
        let empty = #expect(throws: BackendSelectionError.self) { try registry().select(environment: [:]) }
        #expect(
            empty?.description
                == "no display server is reachable: x11: DISPLAY is not set; wayland: WAYLAND_DISPLAY is not set")
        let lonely = BackendRegistry()
        lonely.register(.init(name: "x11", hint: .init(variables: ["DISPLAY"])) { Unreachable() })
        let silent = #expect(throws: BackendSelectionError.self) { try lonely.select(environment: ["DISPLAY": ":77"]) }
        #expect(silent?.description == "no display server is reachable: x11: cannot open display :77")
        let named = #expect(throws: BackendSelectionError.self) { try lonely.select(name: "x11", environment: [:]) }
        #expect(named?.description == "no display server is reachable: x11: cannot open display :77")
    }

    @Test("registering a name again replaces the earlier registration")
    func reRegister() {
        let registry = registry()
        registry.register(
            .init(name: "x11", hint: .init(variables: ["DISPLAY"])) {
                FixedBackend(name: "x11", unavailable: "replaced")
            })
        #expect(registry.all.map(\.name) == ["wayland", "x11"])
        #expect(registry.registration(named: "x11")?.make().availability() == .unavailable(reason: "replaced"))
    }
}

final class Unreachable: KeyboardBackend {
    let name = "x11"
    var capabilities: BackendCapabilities { [] }
    func availability() -> BackendAvailability { .unreachable(reason: "cannot open display :77") }
    func open(in context: LoopContext, sink: any ObservationSink, app: AppIdentity) throws -> any BackendConnection {
        CallbackConnection()
    }
}
