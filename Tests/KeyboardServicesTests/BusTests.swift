import Foundation
import KeyboardAdapterCore
import KeyboardServices
import TestSupport
import Testing
import X11Adapter

/// Session buses of the tests' own, started on their own (`dbus-daemon`, not `dbus-run-session`,
/// which ends with its program): one where onboard could be activated but must not be, one that
/// goes away under a visible onboard, and none at all.
@Suite("session bus")
struct BusTests {
    @Test("--state, --doctor, --show and --hide never start onboard, on a bus that would activate it")
    func noAutoStart() throws {
        guard try Programs.ready(ServiceWorld.programs) else { return }
        let session = try X11Session(width: 1280, height: 800)
        defer { session.stop() }
        let services = session.directory + "/services"
        let marker = session.directory + "/onboard-activated"
        let pidFile = session.directory + "/activated-onboard.pid"
        try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
        // An activation writes a marker and runs the real onboard, with what it needs to start.
        let script = session.directory + "/activate-onboard.sh"
        try "#!/bin/sh\necho activated > '\(marker)'\necho $$ > '\(pidFile)'\nexec onboard\n".write(
            toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        try "[D-BUS Service]\nName=org.onboard.Onboard\nExec=\(script)\n".write(
            toFile: services + "/org.onboard.Onboard.service", atomically: true, encoding: .utf8)
        let bus = try SessionBus(
            directory: session.directory, home: session.directory + "/home", serviceDirectory: services)
        defer {
            let pid =
                Int32(
                    ((try? String(contentsOfFile: pidFile, encoding: .utf8)) ?? "").trimmingCharacters(
                        in: .whitespacesAndNewlines)) ?? 0
            if pid > 0 { kill(pid, SIGTERM) }
            bus.stop()
        }
        try bus.setActivationEnvironment([
            "DISPLAY": session.display, "HOME": session.directory + "/home", "NO_AT_BRIDGE": "1",
            "GSETTINGS_BACKEND": "memory",
        ])
        let environment: [String: String?] = [
            "DISPLAY": session.display, "DBUS_SESSION_BUS_ADDRESS": bus.address, "WAYLAND_DISPLAY": nil,
            "XDG_SESSION_TYPE": "x11", "KEYBOARD_ADAPTER_BACKEND": nil,
        ]
        let state = try Kbwatch.run(["--state"], environment: environment)
        #expect(state.status == 1 && state.stdout.isEmpty, "\(state)")
        let json = try Kbwatch.run(["--state", "--json"], environment: environment)
        #expect(json.stdout.contains(#""status":"notRunning""#), "\(json.stdout)")
        let doctor = try Kbwatch.run(["--doctor"], environment: environment)
        #expect(
            doctor.stdout.contains("keyboard service onboard (org.onboard.Onboard on the session bus): not running"))
        let show = try Kbwatch.run(["--show"], environment: environment)
        #expect(show.status == 7 && show.stderr.contains("withdrawn"), "\(show)")
        let hide = try Kbwatch.run(["--hide"], environment: environment)
        #expect(hide.status == 1, "\(hide)")
        Thread.sleep(forTimeInterval: 1)
        #expect(!FileManager.default.fileExists(atPath: marker), "something activated onboard")
        #expect(try bus.hasOwner("org.onboard.Onboard") == false)

        // The bus would have started it: a call that allows activation does.
        _ = try? bus.call(
            "org.onboard.Onboard", "/org/onboard/Onboard/Keyboard", "org.freedesktop.DBus.Properties.Get",
            ["string:org.onboard.Onboard.Keyboard", "string:Visible"])
        try Wait.require("onboard activated by a plain call", timeout: 15) {
            FileManager.default.fileExists(atPath: marker) && ((try? bus.hasOwner("org.onboard.Onboard")) ?? false)
        }
    }

    @Test("the bus goes away while onboard is visible: geometry goes on, the service says why, no crash")
    func busGoesAway() throws {
        guard try Programs.ready(ServiceWorld.programs) else { return }
        let session = try X11Session(width: 1280, height: 800)
        defer { session.stop() }
        let bus = try SessionBus(directory: session.directory, home: session.directory + "/home")
        defer { bus.stop() }
        let onboard = try Onboard(on: session, bus: bus, settings: ServiceWorld.floating)
        defer { onboard.stop() }
        let world = ServiceWorld(session: session, busAddress: bus.address)
        try world.manager.start()
        try Wait.require("onboard to show", timeout: 20) { world.updates.last?.event == .didShow }
        try world.waitForService("visible") { $0.isVisible == true }

        let started = ChildProcess.descendants(of: bus.process.pid)
        bus.process.stop()
        defer { for pid in started where kill(pid, 0) == 0 { kill(pid, SIGTERM) } }
        try world.waitForService("that the bus went away") {
            if case .busUnavailable(let reason) = $0.status { return reason.contains("went away") }
            return false
        }
        #expect(world.manager.isRunning)
        // onboard may end with its bus (then its window goes: a hide) or stay: geometry says which.
        let onboardRuns = kill(onboard.pid, 0) == 0 && Wait.until(timeout: 1) { kill(onboard.pid, 0) != 0 } == false
        if onboardRuns {
            #expect(world.manager.visibleKeyboards.map(\.keyboard.name) == ["onboard"])
        } else {
            try Wait.require("onboard's window to hide", timeout: 10) { world.updates.last?.event == .didHide }
        }
        #expect(throws: KeyboardControlError.self) { try world.manager.showKeyboard() }
    }

    @Test("no session bus at all: the service says so, geometry alone, show unsupported")
    func noBus() throws {
        guard try Programs.ready(ServiceWorld.programs) else { return }
        let session = try X11Session(width: 1280, height: 800)
        defer { session.stop() }
        let world = ServiceWorld(session: session, busAddress: nil)
        try world.manager.start()
        guard case .busUnavailable(let reason) = world.service.state.status else {
            Issue.record("expected no bus, got \(world.service.state)")
            return
        }
        #expect(reason.contains("DBUS_SESSION_BUS_ADDRESS is not set"))
        #expect(throws: KeyboardControlError.self) { try world.manager.showKeyboard() }
        #expect(throws: KeyboardControlError.notVisible("")) { try world.manager.hideKeyboard() }
    }
}
