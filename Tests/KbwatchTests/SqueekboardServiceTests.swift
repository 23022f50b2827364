import Foundation
import TestSupport
import Testing

/// squeekboard on headless sway with its own session bus, asked through `sm.puri.OSK0`: a
/// keyboard already up when kbwatch starts is reported (not taken for a panel), named, with its
/// pid; `--hide` and `--show` go through its service; a stranger's signals for it are not
/// believed; a killed keyboard or a dead bus ends in what geometry still says, never a crash.
@Suite("squeekboard's service on headless sway")
struct SqueekboardServiceTests {
    struct Setting: Sendable, CustomStringConvertible {
        var bar: HeadlessSway.BarPosition?
        var description: String { bar.map { "with swaybar at the \($0.rawValue)" } ?? "without a bar" }
    }

    /// The host's programs; sway's and squeekboard's come from the stack.
    static let programs = ["dbus-daemon", "dbus-send", "swaymsg"]
    /// squeekboard's strip on a 1280x800 output: the outermost 400 px.
    static let strip = PrintedFrame(x: 0, y: 400, width: 1280, height: 400)

    @Test(
        "up before watching: --state names it, a watcher reports its hide and its next show exactly; a stranger's signals change nothing",
        arguments: [Setting(bar: nil), Setting(bar: .bottom)], Stack.compositors)
    func upBeforeWatching(setting: Setting, stack: Stack) throws {
        guard try Programs.ready(Self.programs),
            try Userland.ready(stack, ["sway", "squeekboard"] + (setting.bar == nil ? [] : ["swaybar"]))
        else { return }
        let world = try SqueekboardWorld(bar: setting.bar, stack: stack)
        defer { world.stop() }
        let bar = try world.barHeight(expected: setting.bar != nil)
        try world.setVisible(true)

        // --state: squeekboard, its pid, the whole space reserved at the bottom (an upper bound:
        // from outside, a bar there cannot be told apart until the keyboard hides once).
        let state = try Kbwatch.run(["--state", "--json"], environment: world.environment)
        #expect(state.status == 0, "kbwatch --state: \(state.stderr)")
        let object = try JSONLine(state.stdout)
        let keyboards = object.array("keyboards")
        #expect(keyboards.count == 1, "\(state.stdout)")
        let keyboard = keyboards.first ?? JSONLine()
        #expect(keyboard.object("keyboard").string("name") == "squeekboard")
        #expect(keyboard.object("keyboard").int("pid") == Int(world.squeekboard.pid))
        #expect(keyboard.rect("frame") == PrintedFrame(x: 0, y: 400 - bar, width: 1280, height: 400 + bar))
        #expect(keyboard.string("geometry") == "derivedUpperBound")
        #expect(state.stdout.contains(#""services":[{"name":"squeekboard""#), "\(state.stdout)")
        #expect(state.stdout.contains(#""status":"running","visible":true"#), "\(state.stdout)")
        let doctor = try Kbwatch.run(["--doctor"], environment: world.environment)
        #expect(doctor.status == 0)
        #expect(
            doctor.stdout.contains(
                "keyboard service squeekboard (sm.puri.OSK0 on the session bus): running, visible, pid \(world.squeekboard.pid)"
            ),
            "\(doctor.stdout)")
        #expect(
            doctor.stdout.contains("squeekboard says visible; \(400 + bar) px are reserved at the bottom edge now"),
            "\(doctor.stdout)")
        #expect(doctor.stdout.contains("show and hide: through squeekboard's service"), "\(doctor.stdout)")

        // A watcher started now reports the keyboard at once, then its hide and its next show.
        let watcher = try Kbwatch.watch(["--json"], environment: world.environment)
        defer { watcher.stop() }
        let start = try watcher.next("didShow", after: 0)
        #expect(start.object("keyboard").string("name") == "squeekboard")
        #expect(start.rect("endFrame") == PrintedFrame(x: 0, y: 400 - bar, width: 1280, height: 400 + bar))

        let hide = try Kbwatch.run(["--hide"], environment: world.environment)
        #expect(hide.status == 0, "kbwatch --hide: \(hide.stderr)")
        let hidden = try watcher.next("didHide", after: start.index)
        #expect(hidden.object("keyboard").string("name") == "squeekboard")
        #expect(try world.visible() == false)

        // A stranger speaking for squeekboard, addressed to the watcher: its Visible, the name
        // lost, the name taken, and its Visible again. Believed, they would print a show or
        // leave the next one unnamed.
        let visible = ForgedSignals.Signal.propertyTrue(
            path: "/sm/puri/OSK0", interface: "sm.puri.OSK0", property: "Visible")
        try ForgedSignals.expectIgnored(
            [visible, .nameLost("sm.puri.OSK0"), .nameTaken("sm.puri.OSK0"), visible], by: watcher,
            bus: world.bus.address)

        let show = try Kbwatch.run(["--show"], environment: world.environment)
        #expect(show.status == 0, "kbwatch --show: \(show.stderr)")
        let shown = try watcher.next("didShow", after: hidden.index)
        #expect(shown.object("keyboard").string("name") == "squeekboard")
        #expect(shown.object("keyboard").int("pid") == Int(world.squeekboard.pid))
        #expect(shown.rect("endFrame") == Self.strip)
        #expect(shown.string("geometry") == "derived")
        #expect(try world.visible() == true)
        #expect(watcher.isRunning, "\(watcher.errors)")
        // The upper bound and the exact strip alike are schema 1.
        if try SchemaValidator.ready() {
            let report = try SchemaValidator.validate(
                watcher.lines.all.map(\.text) + [state.stdout.trimmingCharacters(in: .newlines)])
            #expect(report.status == 0, "\(report.output)")
        }
    }

    @Test("squeekboard killed while visible: a hide, and kbwatch goes on", arguments: Stack.compositors)
    func keyboardKilled(stack: Stack) throws {
        guard try Programs.ready(Self.programs), try Userland.ready(stack, ["sway", "squeekboard"]) else { return }
        let world = try SqueekboardWorld(bar: nil, stack: stack)
        defer { world.stop() }
        let watcher = try Kbwatch.watch(["--json"], environment: world.environment)
        defer { watcher.stop() }
        _ = try world.barHeight(expected: false)
        // Whether kbwatch is connected before the show or only after, the keyboard is reported
        // shown: as it appears, or as up at start (its service says so).
        try world.setVisible(true)
        let shown = try watcher.next("didShow", after: 0)
        #expect(shown.object("keyboard").string("name") == "squeekboard")
        world.squeekboard.signal(SIGKILL)
        let hidden = try watcher.next("didHide", after: shown.index)
        #expect(hidden.object("keyboard").string("name") == "squeekboard")
        #expect(watcher.isRunning, "\(watcher.errors)")
        // The didHide comes from the keyboard's surface going away, which the compositor may see
        // before the bus daemon sees squeekboard's connection close: until then the name is still
        // owned and a read of it fails ("disconnected without replying"), so --state is asked again
        // until the bus has caught up.
        var state = try Kbwatch.run(["--state", "--json"], environment: world.environment)
        Wait.until(timeout: 5, interval: 0.1) {
            if state.stdout.contains(#""status":"notRunning""#) { return true }
            if let again = try? Kbwatch.run(["--state", "--json"], environment: world.environment) { state = again }
            return false
        }
        #expect(state.status == 1)
        #expect(state.stdout.contains(#""status":"notRunning""#), "\(state.stdout)")
        // With squeekboard gone, nothing on Wayland can show a keyboard (exit 7, and why), and
        // there is nothing to hide (exit 1).
        let show = try Kbwatch.run(["--show"], environment: world.environment)
        #expect(show.status == 7, "kbwatch --show: \(show.stderr)")
        #expect(show.stderr.contains("squeekboard: not running"), "\(show.stderr)")
        let hide = try Kbwatch.run(["--hide"], environment: world.environment)
        #expect(hide.status == 1, "kbwatch --hide: \(hide.stderr)")
    }

    @Test(
        "the bus goes away while squeekboard is visible: kbwatch goes on with what geometry says",
        arguments: Stack.compositors)
    func busGone(stack: Stack) throws {
        guard try Programs.ready(Self.programs), try Userland.ready(stack, ["sway", "squeekboard"]) else { return }
        let world = try SqueekboardWorld(bar: nil, stack: stack)
        defer { world.stop() }
        _ = try world.barHeight(expected: false)
        try world.setVisible(true)
        let watcher = try Kbwatch.watch(["--json"], environment: world.environment)
        defer { watcher.stop() }
        let shown = try watcher.next("didShow", after: 0)
        world.bus.stop()
        // The dead bus leaves the loop: no spinning on its closed descriptor.
        Thread.sleep(forTimeInterval: 0.3)
        let before = ProcessUsage.sample(pid: watcher.pid)
        Thread.sleep(forTimeInterval: 1)
        let after = ProcessUsage.sample(pid: watcher.pid)
        if let before, let after {
            #expect(after.ticks - before.ticks <= 1, "CPU ticks in 1 s after the bus went away")
        } else {
            Issue.record("kbwatch's usage could not be read: \(watcher.errors)")
        }
        // squeekboard may go with its bus; whether it does or not, what the watcher says next is
        // what the strip does. Ending squeekboard now must still be seen as a hide.
        world.squeekboard.stop()
        let hidden = try watcher.next("didHide", after: shown.index)
        #expect(hidden.object("keyboard").string("name") == "squeekboard")
        #expect(watcher.isRunning, "\(watcher.errors)")
        #expect(!watcher.errors.contains("Fatal"), "\(watcher.errors)")
    }
}

/// sway, a session bus of its own (started apart, so that it can be ended apart), squeekboard on
/// both (sway and squeekboard from one Debian stack), and the environment kbwatch needs to reach
/// them.
final class SqueekboardWorld: @unchecked Sendable {
    let sway: HeadlessSway
    let bus: SessionBus
    let squeekboard: ChildProcess
    let environment: [String: String?]

    init(bar: HeadlessSway.BarPosition?, stack: Stack = .debian12) throws {
        sway = try HeadlessSway(bar: bar, stack: stack)
        do {
            bus = try SessionBus(directory: sway.runtime.path, home: sway.runtime.home)
        } catch {
            sway.stop()
            throw error
        }
        do {
            // The bus is the test process's, so squeekboard runs as its user; no accessibility bus
            // daemons to clean up after.
            squeekboard = try sway.startClient(
                ["squeekboard"],
                environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "GDK_BACKEND": "wayland", "NO_AT_BRIDGE": "1"],
                asTestUser: false)
            try bus.waitForName("sm.puri.OSK0")
        } catch {
            bus.stop()
            sway.stop()
            throw error
        }
        environment = [
            "WAYLAND_DISPLAY": sway.socket, "XDG_RUNTIME_DIR": sway.runtime.xdg, "DISPLAY": nil,
            "DBUS_SESSION_BUS_ADDRESS": bus.address, "XDG_SESSION_TYPE": "wayland", "KEYBOARD_ADAPTER_BACKEND": nil,
        ]
    }

    func stop() {
        squeekboard.stop()
        bus.stop()
        sway.stop()
    }

    /// The height of the bar at the bottom, once sway has placed it (0 without a bar).
    func barHeight(expected: Bool) throws -> Int {
        var height = 0
        try Wait.require("sway's workspace area to settle", timeout: 10) {
            guard let area = try? workspaceHeight() else { return false }
            height = 800 - area
            return expected ? height > 0 : height == 0
        }
        return height
    }

    private func workspaceHeight() throws -> Int? {
        let output = try sway.message(["-t", "get_workspaces"])
        guard let list = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]],
            let rect = list.first?["rect"] as? [String: Any]
        else { return nil }
        return rect["height"] as? Int
    }

    /// Asks squeekboard to show or hide and waits until its zone and its `Visible` say so.
    func setVisible(_ visible: Bool) throws {
        try bus.call("sm.puri.OSK0", "/sm/puri/OSK0", "sm.puri.OSK0.SetVisible", ["boolean:\(visible)"])
        try Wait.require("squeekboard's Visible to be \(visible)", timeout: 10) { (try? self.visible()) == visible }
        // squeekboard 1.21 reserves its 400 px before its Visible turns true, 1.43 some 20 to 40 ms
        // after: until then it is up at an unknown place.
        try Wait.require("squeekboard's zone to be \(visible ? "in place" : "gone")", timeout: 10) {
            (try? self.workspaceHeight()).flatMap { $0 }.map { visible ? $0 <= 400 : $0 > 400 } ?? false
        }
    }

    /// squeekboard's `Visible` property, read on the bus.
    func visible() throws -> Bool {
        let reply = try bus.call(
            "sm.puri.OSK0", "/sm/puri/OSK0", "org.freedesktop.DBus.Properties.Get",
            ["string:sm.puri.OSK0", "string:Visible"])
        return reply.contains("boolean true")
    }
}
