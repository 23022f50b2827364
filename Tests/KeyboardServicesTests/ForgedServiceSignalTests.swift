import Foundation
import KeyboardAdapterCore
import KeyboardServices
import Synchronization
import TestSupport
import Testing

/// A stranger addresses to a watch of squeekboard's `sm.puri.OSK0` a `PropertiesChanged` saying
/// `Visible` is true, and the bus's `NameOwnerChanged` saying the keyboard went away, then one
/// saying the stranger took the name: none is believed (only the name's owner speaks for the
/// keyboard, only the bus for the name), and the keyboard's own change afterwards is.
@Suite("forged signals to a keyboard service's watch")
struct ForgedServiceSignalTests {
    @Test("PropertiesChanged and NameOwnerChanged from a stranger change nothing; the keyboard's own signal does")
    func forged() throws {
        guard try Programs.ready(["dbus-daemon", "dbus-send", "/usr/bin/python3"]) else { return }
        let world = try PeerOnBus(Self.peer, owning: "sm.puri.OSK0", prefix: "kbadapter-forged")
        defer { withExtendedLifetime(world) {} }
        let (bus, peer, environment) = (world.bus, world.peer, world.environment)

        let service = DBusKeyboardService.squeekboard(environment: environment)
        let loop = try KeyboardRunLoop()
        try loop.start()
        defer { loop.stop() }
        let changes = Counter()
        try loop.performAndWait { context in service.start(in: context) { _ in changes.add() } }
        defer { try? loop.performAndWait { service.stop() } }
        #expect(service.state.isRunning && service.state.isVisible == false, "\(service.state)")
        let before = changes.value

        let me = getpid()
        let forged: [ForgedSignals.Signal] = [
            .propertyTrue(path: "/sm/puri/OSK0", interface: "sm.puri.OSK0", property: "Visible"),
            .nameLost("sm.puri.OSK0"), .nameTaken("sm.puri.OSK0"),
            .propertyTrue(path: "/sm/puri/OSK0", interface: "sm.puri.OSK0", property: "Visible"),
        ]
        for signal in forged {
            #expect(try ForgedSignals.send(signal, toConnectionsOf: me, bus: bus.address) >= 1)
        }
        Thread.sleep(forTimeInterval: 0.5)
        #expect(service.state.isRunning && service.state.isVisible == false, "\(service.state)")
        #expect(service.state.pid == peer.pid, "\(service.state)")
        #expect(changes.value == before, "a forged signal changed the state")

        // The keyboard itself shows: heard.
        peer.signal(SIGUSR1)
        try Wait.require("Visible true from the keyboard itself (\(service.state))", timeout: 10) {
            service.state.isVisible == true
        }
    }

    /// Owns `sm.puri.OSK0` with `Visible` false; SIGUSR1 makes it true, with PropertiesChanged.
    static let peer = """
        import signal
        from gi.repository import Gio, GLib

        XML = '''<node><interface name="sm.puri.OSK0">
          <method name="SetVisible"><arg type="b" direction="in"/></method>
          <property name="Visible" type="b" access="read"/>
        </interface></node>'''
        visible = False

        def call(connection, sender, path, interface, method, parameters, invocation):
            invocation.return_value(None)

        def get(connection, sender, path, interface, name):
            return GLib.Variant("b", visible)

        def show():
            global visible
            visible = True
            connection.emit_signal(None, "/sm/puri/OSK0", "org.freedesktop.DBus.Properties", "PropertiesChanged",
                                   GLib.Variant("(sa{sv}as)", ("sm.puri.OSK0", {"Visible": GLib.Variant("b", True)}, [])))
            return GLib.SOURCE_CONTINUE

        connection = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        connection.register_object(
            "/sm/puri/OSK0", Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0], call, get, None)
        Gio.bus_own_name_on_connection(connection, "sm.puri.OSK0", Gio.BusNameOwnerFlags.NONE, None, None)
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, show)
        GLib.MainLoop().run()

        """
}

/// A count, bumped on the loop's thread and read on the test's.
final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
