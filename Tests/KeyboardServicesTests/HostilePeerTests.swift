import Foundation
import KeyboardAdapterCore
@_spi(BackendRun) import KeyboardBackendInterface
import KeyboardServices
import TestSupport
import Testing

/// A peer that takes squeekboard's bus name and misbehaves: a `Visible` of the wrong type,
/// PropertiesChanged signals of the wrong shapes (one of them 100 000 strings long), a request it
/// never answers. The service turns each into a problem in its state, and its loop goes on.
@Suite("a misbehaving peer on squeekboard's name")
struct HostilePeerTests {
    @Test("wrong types, malformed and huge signals, an unanswered request: problems, never a crash or a stall")
    func hostilePeer() throws {
        guard try Programs.ready(["dbus-daemon", "/usr/bin/python3", "dbus-send"]) else { return }
        let world = try PeerOnBus(Self.peer, owning: "sm.puri.OSK0", prefix: "kbadapter-peer")
        defer { withExtendedLifetime(world) {} }
        let (peer, environment) = (world.peer, world.environment)

        let service = DBusKeyboardService.squeekboard(environment: environment)
        let probed = service.probe()
        #expect(probed.isRunning && probed.isVisible == nil, "\(probed)")
        #expect(probed.problem == "Visible has type 's', not 'b'", "\(probed)")

        let loop = try KeyboardRunLoop()
        try loop.start()
        defer { loop.stop() }
        try loop.performAndWait { context in service.start(in: context) { _ in } }
        defer { try? loop.performAndWait { service.stop() } }
        #expect(service.state.problem == "Visible has type 's', not 'b'", "\(service.state)")

        // A storm of bad signals ends with a good one: the good one is heard.
        peer.signal(SIGUSR1)
        try Wait.require("Visible true after the storm (\(service.state))", timeout: 10) {
            service.state.isVisible == true
        }
        // A request the peer holds: the loop goes on meanwhile (the next storm is heard) and the
        // request fails after its bounded wait.
        let outcome = Outcome()
        service.requestVisible(false) { outcome.set($0) }
        try Wait.require("the peer to hold the request", timeout: 10) { peer.log.contains("held") }
        peer.signal(SIGUSR1)
        try Wait.require("Visible false after the second storm (\(service.state))", timeout: 10) {
            service.state.isVisible == false
        }
        #expect(outcome.value == nil, "the held request completed early")
        try Wait.require("the held request to fail", timeout: 10) { outcome.value != nil }
        if case .failure(.failed(let reason)) = outcome.value {
            #expect(reason.hasPrefix("squeekboard refused: "), "\(reason)")
        } else {
            Issue.record("expected a failure, got \(String(describing: outcome.value))")
        }
        #expect(peer.isRunning)
    }

    final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var result: Result<Void, KeyboardControlError>?
        func set(_ value: Result<Void, KeyboardControlError>) { lock.withLock { result = value } }
        var value: Result<Void, KeyboardControlError>? { lock.withLock { result } }
    }

    /// The peer: owns `sm.puri.OSK0`, says `Visible` is a string, holds every `SetVisible`, and on
    /// SIGUSR1 sends PropertiesChanged as an int, as 100 000 strings, with a wrong signature, then
    /// as a boolean (true, false, true, ... one storm after the other).
    static let peer = """
        import signal
        from gi.repository import Gio, GLib

        XML = '''<node><interface name="sm.puri.OSK0">
          <method name="SetVisible"><arg type="b" direction="in"/></method>
          <property name="Visible" type="s" access="read"/>
        </interface></node>'''
        held = []
        storms = [0]

        def call(connection, sender, path, interface, method, parameters, invocation):
            held.append(invocation)
            print("held", method, flush=True)

        def get(connection, sender, path, interface, name):
            return GLib.Variant("s", "yes")

        connection = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        connection.register_object(
            "/sm/puri/OSK0", Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0], call, get, None)

        def send(parameters):
            connection.emit_signal(
                None, "/sm/puri/OSK0", "org.freedesktop.DBus.Properties", "PropertiesChanged", parameters)

        def changed(value):
            return GLib.Variant("(sa{sv}as)", ("sm.puri.OSK0", {"Visible": value}, []))

        def storm():
            send(changed(GLib.Variant("i", 7)))
            send(changed(GLib.Variant("as", ["x" * 16] * 100000)))
            send(GLib.Variant("(s)", ("sm.puri.OSK0",)))
            send(changed(GLib.Variant("b", storms[0] % 2 == 0)))
            storms[0] += 1
            connection.flush_sync(None)
            return GLib.SOURCE_CONTINUE

        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, storm)
        Gio.bus_own_name_on_connection(connection, "sm.puri.OSK0", Gio.BusNameOwnerFlags.NONE, None, None)
        GLib.MainLoop().run()

        """
}
