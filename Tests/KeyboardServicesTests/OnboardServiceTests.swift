import Foundation
import KeyboardAdapterCore
import KeyboardServices
import TestSupport
import Testing
import X11Adapter

/// onboard on Xvfb without a window manager, asked to hide and show through its own service: by
/// the API and by `kbwatch --hide`/`--show`, floating and docked. Its `Visible` property changes,
/// and the events follow from its window.
@Suite("onboard's service")
struct OnboardServiceTests {
    struct Layout: Sendable, CustomStringConvertible {
        var name: String
        var settings: [Onboard.Setting]
        var description: String { name }
    }

    static let layouts = [
        Layout(name: "floating", settings: ServiceWorld.floating),
        Layout(name: "docked", settings: Onboard.dockedBottom),
    ]

    @Test(
        "the API and kbwatch hide and show onboard through its service; a stranger's signals for it change nothing",
        arguments: layouts)
    func hideAndShow(layout: Layout) throws {
        guard try Programs.ready(ServiceWorld.programs) else { return }
        let session = try X11Session(width: 1280, height: 800)
        defer { session.stop() }
        let onboard = try Onboard(on: session, settings: layout.settings)
        defer { onboard.stop() }
        // A docked slide's steps come about 20 ms apart: a longer settle keeps it one transition.
        let world = ServiceWorld(session: session, busAddress: onboard.busAddress, settleInterval: 0.15)
        try world.manager.start()
        try Wait.require("onboard to show", timeout: 20) { world.updates.last?.event == .didShow }
        try world.waitForService("running and visible, with its pid") {
            $0.isRunning && $0.isVisible == true && $0.pid == onboard.pid
        }
        #expect(world.manager.keyboardServices.first?.state.isVisible == true)
        if case .failure(let error) = world.manager.showSupport { Issue.record("show unsupported: \(error)") }

        try world.step("the API's hide", expecting: [.willHide, .didHide]) { try world.manager.hideKeyboard() }
        #expect(onboard.visible() == false)
        try world.waitForService("hidden") { $0.isVisible == false }
        // A stranger speaking for onboard, addressed to this process's connections: its Visible,
        // the name lost, the name taken. None is believed.
        let visible = ForgedSignals.Signal.propertyTrue(
            path: "/org/onboard/Onboard/Keyboard", interface: "org.onboard.Onboard.Keyboard", property: "Visible")
        let updatesBefore = world.updates.count
        for signal in [visible, .nameLost("org.onboard.Onboard"), .nameTaken("org.onboard.Onboard"), visible] {
            #expect(try ForgedSignals.send(signal, toConnectionsOf: getpid(), bus: onboard.busAddress) >= 1)
        }
        Thread.sleep(forTimeInterval: 0.5)
        let service = world.manager.keyboardServices.first?.state
        #expect(
            service?.isRunning == true && service?.isVisible == false && service?.pid == onboard.pid,
            "\(String(describing: service))")
        #expect(world.updates.count == updatesBefore)
        let shown = try world.step("the API's show", expecting: [.willShow, .didShow]) {
            try world.manager.showKeyboard()
        }
        #expect(onboard.visible() == true)
        #expect(shown.last?.keyboard.name == "onboard" && shown.last?.keyboard.pid == onboard.pid)
        if layout.name == "docked" { #expect(shown.last?.isDocked == true) }

        let environment: [String: String?] = [
            "DISPLAY": session.display, "DBUS_SESSION_BUS_ADDRESS": onboard.busAddress, "WAYLAND_DISPLAY": nil,
            "XDG_SESSION_TYPE": "x11", "KEYBOARD_ADAPTER_BACKEND": nil,
        ]
        try world.step("kbwatch --hide", expecting: [.willHide, .didHide]) {
            let result = try Kbwatch.run(["--hide"], environment: environment)
            #expect(result.status == 0, "kbwatch --hide: \(result.stderr)")
        }
        #expect(onboard.visible() == false)
        try world.step("kbwatch --show", expecting: [.willShow, .didShow]) {
            let result = try Kbwatch.run(["--show"], environment: environment)
            #expect(result.status == 0, "kbwatch --show: \(result.stderr)")
        }
        #expect(onboard.visible() == true)

        let state = try Kbwatch.run(["--state", "--json"], environment: environment)
        #expect(state.status == 0)
        #expect(state.stdout.contains(#""services":[{"name":"onboard""#), "\(state.stdout)")
        #expect(state.stdout.contains(#""status":"running","visible":true,"pid":\#(onboard.pid)"#), "\(state.stdout)")
        let doctor = try Kbwatch.run(["--doctor"], environment: environment)
        #expect(
            doctor.stdout.contains(
                "keyboard service onboard (org.onboard.Onboard on the session bus): running, visible"))
        #expect(doctor.stdout.contains("show: through onboard's service"), "\(doctor.stdout)")
    }

    @Test("onboard killed while visible: a hide, its service not running, show unsupported with the reason")
    func killedWhileVisible() throws {
        guard try Programs.ready(ServiceWorld.programs) else { return }
        let session = try X11Session(width: 1280, height: 800)
        defer { session.stop() }
        let onboard = try Onboard(on: session, settings: ServiceWorld.floating)
        defer { onboard.stop() }
        let world = ServiceWorld(session: session, busAddress: onboard.busAddress)
        try world.manager.start()
        try Wait.require("onboard to show", timeout: 20) { world.updates.last?.event == .didShow }
        try world.waitForService("visible") { $0.isVisible == true }

        try world.step("onboard killed", expecting: [.willHide, .didHide]) { kill(onboard.pid, SIGKILL) }
        try world.waitForService("not running (or its bus gone with it)") { !$0.isRunning }
        #expect(world.manager.isRunning)
        #expect(throws: KeyboardControlError.self) { try world.manager.showKeyboard() }
        do {
            try world.manager.showKeyboard()
        } catch {
            #expect(error.description.contains("withdrawn"), "\(error)")
        }
    }
}
