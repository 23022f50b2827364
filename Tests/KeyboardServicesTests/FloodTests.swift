import Foundation
import KeyboardAdapterCore
@_spi(BackendRun) import KeyboardBackendInterface
import KeyboardServices
import Synchronization
import TestSupport
import Testing
import X11Adapter

/// One busy source never starves the others: a peer on squeekboard's name floods the bus with
/// signals (the service reads at most 256 per turn and is due again at once), while xvkbd moves
/// on an X server watched by the same loop. Every move is still reported promptly.
@Suite("a flood of signals on one source")
struct FloodTests {
    @Test("xvkbd's moves on X11 are reported within 0.5 s while squeekboard's name floods the bus")
    func movesDuringFlood() throws {
        let programs = ["Xvfb", "xvkbd", "xdotool", "xwininfo", "dbus-daemon", "/usr/bin/python3"]
        guard try Programs.ready(programs) else { return }
        let directory = try RuntimeDirectory(owner: (getuid(), getgid()), prefix: "kbadapter-flood")
        let bus = try SessionBus(directory: directory.path, home: directory.home)
        defer { bus.stop() }
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        let peer = try ChildProcess(
            "/usr/bin/python3", [try directory.write("flood.py", Self.flood)], environment: environment,
            directory: directory.path)
        defer { peer.stop() }
        try bus.waitForName("sm.puri.OSK0")

        let session = try X11Session(width: 1280, height: 800)
        defer { session.stop() }
        let service = DBusKeyboardService.squeekboard(environment: environment)
        let manager = KeyboardManager(
            backend: X11Backend(displayName: session.display, rules: .builtIn, services: [service]),
            configuration: .init(settleInterval: 0.05))
        let seen = Mutex<[(event: KeyboardEvent, time: Double)]>([])
        let token = manager.onEvent(delivery: .immediate) { update in
            let now = MonotonicClock.now()
            seen.withLock { $0.append((update.event, now)) }
        }
        defer { token.cancel() }
        try manager.start()
        defer { manager.stop() }
        let keyboard = try session.start("xvkbd")
        defer { keyboard.stop() }
        try Wait.require("xvkbd to show", timeout: 15) { manager.visibleKeyboards.count == 1 }
        let id = try #require(manager.visibleKeyboards.first).keyboard.id
        let hex = "0x" + id.dropFirst("x11:0x".count)

        // The flood is under way: the service keeps hearing Visible change.
        try Wait.require("the flood to reach the service", timeout: 10) { peer.log.contains("flooding") }
        var delays: [Double] = []
        for step in 0..<8 {
            let mark = seen.withLock { $0.count }
            let asked = MonotonicClock.now()
            try session.xdotool("windowmove", hex, "\(100 + step * 20)", "\(400 + step * 10)")
            // The did too: a move made before it would be part of the same transition.
            try Wait.require("move \(step) to be reported", timeout: 10) {
                seen.withLock { $0.dropFirst(mark).contains { $0.event == .didChangeFrame } }
            }
            let reported = seen.withLock { $0.dropFirst(mark).first { $0.event == .willChangeFrame }!.time }
            delays.append(reported - asked)
        }
        let sorted = delays.sorted()
        print("move → willChangeFrame during the flood: median \(sorted[sorted.count / 2]) s, max \(sorted.last!) s")
        #expect(sorted.last! < 0.5, "\(delays)")
        #expect(peer.isRunning)
        #expect(service.state.isRunning, "\(service.state)")
    }

    /// Owns `sm.puri.OSK0` with a boolean `Visible`, and sends PropertiesChanged for it as fast as
    /// GLib's idle loop lets it, 500 at a time.
    static let flood = """
        from gi.repository import Gio, GLib

        XML = '''<node><interface name="sm.puri.OSK0">
          <method name="SetVisible"><arg type="b" direction="in"/></method>
          <property name="Visible" type="b" access="read"/>
        </interface></node>'''
        state = [False, 0]

        def call(connection, sender, path, interface, method, parameters, invocation):
            invocation.return_value(None)

        def get(connection, sender, path, interface, name):
            return GLib.Variant("b", state[0])

        connection = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        connection.register_object(
            "/sm/puri/OSK0", Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0], call, get, None)

        def flood():
            for _ in range(500):
                state[0] = not state[0]
                connection.emit_signal(
                    None, "/sm/puri/OSK0", "org.freedesktop.DBus.Properties", "PropertiesChanged",
                    GLib.Variant("(sa{sv}as)", ("sm.puri.OSK0", {"Visible": GLib.Variant("b", state[0])}, [])))
            state[1] += 1
            if state[1] == 20:
                print("flooding", flush=True)
            return GLib.SOURCE_CONTINUE

        Gio.bus_own_name_on_connection(connection, "sm.puri.OSK0", Gio.BusNameOwnerFlags.NONE, None, None)
        GLib.idle_add(flood)
        GLib.MainLoop().run()

        """
}
