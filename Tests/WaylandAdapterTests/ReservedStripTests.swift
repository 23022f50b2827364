import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing

extension WaylandIntegration {
    /// wvkbd docked before kbwatch starts, with no keyboard service to say what it is: geometry
    /// alone cannot tell it from a panel, so `kbwatch --state` says no keyboard is known to be up
    /// (exit 1) and lists the strip as reserved space, a docked keyboard or a panel. Hidden, the
    /// strip is gone from the list.
    @Suite("kbwatch --state: reserved space that may be a keyboard")
    struct ReservedStripTests {
        @Test(
            "wvkbd docked on sway before --state: exit 1, the strip under reserved; hidden: nothing",
            arguments: Stack.compositors)
        func onSway(stack: Stack) throws {
            guard try Programs.ready(["swaymsg"]), try Userland.ready(stack, ["sway", "wvkbd-mobintl"]) else { return }
            let (sway, keyboard, height, _) = try Fixture.dockedWvkbd(stack)
            defer { sway.stop() }
            defer { keyboard.stop() }
            try Self.expectReserved(
                sway.clientEnvironment, output: "HEADLESS-1",
                strip: Rect(x: 0, y: 800 - height, width: 1280, height: height))
            keyboard.signal(SIGUSR1)
            _ = try Fixture.waitForWorkspaceArea(sway, "wvkbd's zone gone") { $0.height == 800 }
            try Self.expectNothing(sway.clientEnvironment)
        }

        @Test("wvkbd docked on labwc before --state: the same", arguments: Stack.newerWlroots)
        func onLabwc(stack: Stack) throws {
            guard try Userland.ready(stack, ["labwc", "wvkbd-mobintl"]) else { return }
            let labwc = try HeadlessLabwc(stack: stack)
            defer { labwc.stop() }
            let keyboard = try Fixture.wvkbd(labwc)
            defer { keyboard.stop() }
            keyboard.signal(SIGUSR2)
            let environment: [String: String?] = [
                "WAYLAND_DISPLAY": labwc.socket, "XDG_RUNTIME_DIR": labwc.runtime.xdg, "DISPLAY": nil, "SWAYSOCK": nil,
            ]
            // labwc's headless output is 1920x1080 unless told otherwise: the strip is found, then checked.
            // wvkbd's first show may destroy its surface and make it again when the compositor's
            // first configure is not the size it asked (its zone then leaves and comes back): the
            // strip counts as settled once three runs in a row list it.
            var listed: [String: Any]?
            var runs = 0
            try Wait.require("kbwatch --state to list wvkbd's strip three times in a row", timeout: 15) {
                listed = (try? Self.state(environment, expectingNoKeyboard: false))?.reserved.first
                runs = (listed?["frame"] as? [String: Int])?["height"] == 250 ? runs + 1 : 0
                return runs == 3
            }
            let frame = try #require(listed?["frame"] as? [String: Int])
            let output = try #require(listed?["output"] as? [String: Any])
            try Self.expectReserved(
                environment, output: try #require(output["name"] as? String),
                strip: Rect(
                    x: frame["x"] ?? -1, y: frame["y"] ?? -1, width: frame["width"] ?? -1, height: frame["height"] ?? -1
                ))
            #expect(
                (frame["y"] ?? 0) + 250 == (output["y"] as? Int ?? 0) + (output["height"] as? Int ?? -1)
                    && frame["width"] == output["width"] as? Int, "along the whole bottom edge: \(listed ?? [:])")
        }

        /// `--state --json` and `--state` as people read it, with the session bus unset (no service).
        static func state(_ environment: [String: String?], expectingNoKeyboard: Bool = true) throws -> (
            status: Int32, reserved: [[String: Any]], human: String
        ) {
            var environment = environment
            environment["DBUS_SESSION_BUS_ADDRESS"] = nil
            environment["KEYBOARD_ADAPTER_BACKEND"] = nil
            environment["XDG_SESSION_TYPE"] = "wayland"
            let json = try Kbwatch.run(["--state", "--json", "--backend", "wayland"], environment: environment)
            let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            if expectingNoKeyboard {
                #expect(object?["visible"] as? Bool == false, "\(json.stdout)")
                #expect((object?["keyboards"] as? [Any])?.isEmpty == true, "\(json.stdout)")
            }
            let human = try Kbwatch.run(["--state", "--backend", "wayland"], environment: environment)
            if expectingNoKeyboard {
                #expect(human.status == json.status, "\(human.stdout) \(human.stderr)")
            }
            return (json.status, object?["reserved"] as? [[String: Any]] ?? [], human.stdout)
        }

        static func expectReserved(_ environment: [String: String?], output: String, strip: Rect) throws {
            let state = try state(environment)
            #expect(state.status == 1, "no keyboard is known to be up: \(state)")
            #expect(state.reserved.count == 1, "\(state.reserved)")
            let entry = try #require(state.reserved.first)
            #expect((entry["output"] as? [String: Any])?["name"] as? String == output, "\(entry)")
            #expect(entry["edge"] as? String == "bottom", "\(entry)")
            #expect(
                entry["frame"] as? [String: Int]
                    == ["x": strip.x, "y": strip.y, "width": strip.width, "height": strip.height], "\(entry)")
            #expect(
                state.human
                    == "reserved \(output) bottom \(strip): a docked keyboard or a panel (nothing says which)\n",
                "\(state.human)")
        }

        static func expectNothing(_ environment: [String: String?]) throws {
            let state = try state(environment)
            #expect(state.status == 1 && state.reserved.isEmpty && state.human.isEmpty, "\(state)")
        }
    }
}
