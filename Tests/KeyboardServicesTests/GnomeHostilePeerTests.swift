import Foundation
import KeyboardAdapterCore
@_spi(BackendRun) import KeyboardBackendInterface
import KeyboardServices
import TestSupport
import Testing

/// A peer that takes GNOME Shell's bus name, answers as the extension would, then misbehaves:
/// signals of the wrong shapes, coordinates that are not numbers or far too large, 100 000 app
/// ids, a stranger's forged `NameOwnerChanged` for the shell's name, and a stranger on the bus
/// sending the extension's signals from a name of its own. The
/// service believes none of it (a rectangle that is not a number is no rectangle) and goes on to
/// hear the good signal that follows.
@Suite("a misbehaving peer on GNOME Shell's name")
struct GnomeHostilePeerTests {
    @Test("wrong signatures, NaN and huge rectangles, 100 000 app ids, a stranger's signals: ignored, never a crash")
    func hostilePeer() throws {
        guard try Programs.ready(["dbus-daemon", "/usr/bin/python3"]) else { return }
        let world = try PeerOnBus(Self.peer, owning: "org.gnome.Shell", prefix: "kbadapter-gnomepeer")
        defer { withExtendedLifetime(world) {} }
        let (bus, peer, environment) = (world.bus, world.peer, world.environment)

        let service = GnomeShellKeyboardService(environment: environment)
        let probed = service.probe()
        #expect(probed.isRunning && probed.isVisible == false && probed.companion != nil, "\(probed)")

        let loop = try KeyboardRunLoop()
        try loop.start()
        defer { loop.stop() }
        try loop.performAndWait { context in service.start(in: context) { _ in } }
        defer { try? loop.performAndWait { service.stop() } }
        #expect(service.state.isVisible == false)

        // A stranger's forged NameOwnerChanged, addressed to this process: the shell gone, then
        // the stranger the owner. Believed, the first would hide the keyboard and the second
        // would silence the real shell (its good signal below would not be heard).
        try ForgedSignals.send(.nameLost("org.gnome.Shell"), toConnectionsOf: getpid(), bus: bus.address)
        try ForgedSignals.send(.nameTaken("org.gnome.Shell"), toConnectionsOf: getpid(), bus: bus.address)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(service.state.isRunning && service.state.isVisible == false, "\(service.state)")

        // The stranger speaks first: nothing changes.
        peer.signal(SIGUSR2)
        try Wait.require("the stranger to have spoken", timeout: 10) { peer.log.contains("stranger done") }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(service.state.isVisible == false, "\(service.state)")

        // A storm of bad signals from the shell's own name ends with a good one.
        peer.signal(SIGUSR1)
        // The storm's own Focus with the good app id (and a NaN window) may be reported first: the
        // good signal is the one with the window too.
        try Wait.require("the good signal after the storm (\(service.state))", timeout: 10) {
            service.state.companion?.focus?.appIDs == ["org.example.Good"]
                && service.state.companion?.focus?.windowFrame != nil
        }
        #expect(service.state.isVisible == true)
        let report = try #require(service.state.companion)
        #expect(report.panel?.frame == Rect(x: 0, y: 800, width: 1280, height: 267), "\(report)")
        #expect(report.panel?.destination == Rect(x: 0, y: 533, width: 1280, height: 267), "\(report)")
        #expect(report.output?.frame == Rect(x: 0, y: 0, width: 1280, height: 800))
        #expect(report.focus?.pid == 4242 && report.focus?.appIDs == ["org.example.Good"], "\(report)")
        #expect(report.focus?.windowFrame == Rect(x: 0, y: -235, width: 1280, height: 768), "\(report)")
        #expect(peer.isRunning)
    }

    /// The peer: org.gnome.Shell with the extension's object, hidden keyboard; SIGUSR1 sends the
    /// storm from the shell's name, SIGUSR2 the stranger's signals from another connection.
    static let peer = #"""
        import math, signal
        from gi.repository import Gio, GLib

        XML = """
        <node>
          <interface name="org.keyboardadapter.GnomeShell1">
            <property name="Revision" type="u" access="read"/>
            <property name="Release" type="s" access="read"/>
            <property name="ShellVersion" type="s" access="read"/>
            <property name="Enabled" type="b" access="read"/>
            <method name="GetState">
              <arg name="visible" type="b" direction="out"/>
              <arg name="frame" type="(dddd)" direction="out"/>
              <arg name="monitor" type="(uiiiid)" direction="out"/>
              <arg name="focus" type="(uas)" direction="out"/>
            </method>
          </interface>
        </node>
        """
        PATH = "/org/keyboardadapter/GnomeShell"
        IFACE = "org.keyboardadapter.GnomeShell1"
        MONITOR = (0, 0, 0, 1280, 800, 1.0)
        node = Gio.DBusNodeInfo.new_for_xml(XML)
        bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        props = {"Revision": GLib.Variant("u", 4), "Release": GLib.Variant("s", "1.0.0"),
                 "ShellVersion": GLib.Variant("s", "43.9"), "Enabled": GLib.Variant("b", True)}

        def call(connection, sender, path, iface, method, params, invocation):
            invocation.return_value(GLib.Variant("(b(dddd)(uiiiid)(uas))",
                (False, (0.0, 800.0, 1280.0, 267.0), MONITOR, (0, []))))

        def get(connection, sender, path, iface, name):
            return props[name]

        bus.register_object(PATH, node.interfaces[0], call, get, None)
        Gio.bus_own_name_on_connection(bus, "org.gnome.Shell", 0, None, None)

        def emit(connection, member, signature, values):
            connection.emit_signal(None, PATH, IFACE, member, GLib.Variant(signature, values))

        def storm():
            emit(bus, "VisibilityChanged", "(s)", ("visible",))
            emit(bus, "VisibilityChanged", "(b(dddd)(dddd)(uiiiid))",
                (True, (0.0, 0.0, 1.0, 1.0), (0.0, 0.0, 1.0, 1.0), MONITOR))
            nan = (True, (math.nan, 0.0, 1280.0, 267.0), (0.0, 533.0, 1280.0, 267.0), MONITOR, 1)
            emit(bus, "VisibilityChanged", "(b(dddd)(dddd)(uiiiid)t)", nan)
            huge = (True, (0.0, 1e12, 1280.0, 267.0), (0.0, 533.0, 1280.0, 267.0), MONITOR, 1)
            emit(bus, "VisibilityChanged", "(b(dddd)(dddd)(uiiiid)t)", huge)
            emit(bus, "VisibilityChanged", "(b(dddd)(dddd)(uiiiid)t)",
                (True, (0.0, 800.0, -5.0, 267.0), (0.0, 533.0, 1280.0, 267.0), MONITOR, 1))
            emit(bus, "Moved", "(dd)", (1.0, 2.0))
            emit(bus, "Moved", "((dddd)t)", ((math.inf, 0.0, 1.0, 1.0), 1))
            emit(bus, "Focus", "(s)", ("focus",))
            emit(bus, "Focus", "((uas))", ((4242, ["org.example.Good"]),))
            emit(bus, "Focus", "((uas)(dddd))", ((4242, ["org.example.Good"]), (math.nan, 0.0, 1280.0, 768.0)))
            emit(bus, "Focus", "((uas)(dddd))",
                ((4242, ["x" * 300] + ["id%d" % i for i in range(100000)]), (0.0, 1e12, 1280.0, 768.0)))
            emit(bus, "Focus", "((uas)(dddd))",
                ((4242, ["x" * 300] + ["id%d" % i for i in range(100000)]), (0.0, -235.0, 1280.0, 768.0)))
            many = (True, (0.0, 800.0, 1280.0, 267.0), (0.0, 533.0, 1280.0, 267.0), MONITOR, 1)
            emit(bus, "VisibilityChanged", "(b(dddd)(dddd)(uiiiid)t)", many)
            emit(bus, "VisibilityChanged", "(b(dddd)(dddd)(uiiiid)t)",
                (False, (0.0, 800.0, 1280.0, 267.0), (0.0, 800.0, 1280.0, 267.0), MONITOR, 2))
            emit(bus, "Focus", "((uas)(dddd))", ((4242, ["org.example.Good"]), (0.0, -235.0, 1280.0, 768.0)))
            good = (True, (0.0, 800.0, 1280.0, 267.0), (0.0, 533.0, 1280.0, 267.0), MONITOR, 3)
            emit(bus, "VisibilityChanged", "(b(dddd)(dddd)(uiiiid)t)", good)
            return True

        def stranger():
            other = Gio.DBusConnection.new_for_address_sync(
                Gio.dbus_address_get_for_bus_sync(Gio.BusType.SESSION, None),
                Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
                None, None)
            fake = (True, (0.0, 533.0, 1280.0, 267.0), (0.0, 533.0, 1280.0, 267.0), MONITOR, 1)
            for _ in range(50):
                emit(other, "Focus", "((uas)(dddd))", ((1, ["evil"]), (0.0, 0.0, 1.0, 1.0)))
                emit(other, "VisibilityChanged", "(b(dddd)(dddd)(uiiiid)t)", fake)
            other.flush_sync(None)
            print("stranger done", flush=True)
            return True

        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, storm)
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR2, stranger)
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, lambda: loop.quit())
        loop = GLib.MainLoop()
        loop.run()
        """#
}
