import Foundation
import KeyboardAdapterCore
@_spi(BackendRun) import KeyboardBackendInterface
import KeyboardServices
import TestSupport
import Testing

/// squeekboard's interface served by other programs: the program that owns the name names the
/// keyboards (phosh-osk-stub, Stevia's phosh-osk-stevia, whose name is longer than the 15 bytes
/// `/proc/PID/comm` keeps, or any other), whether it owned the name before the service started or
/// took it later. The peer is Python run under each name (a link's name is the process's
/// executable name).
@Suite("the owner of sm.puri.OSK0 names the keyboard")
struct OwnerNameTests {
    @Test("phosh-osk-stub before the start, python3, then phosh-osk-stevia (a name comm cuts) later")
    func ownerNames() throws {
        guard try Programs.ready(["dbus-daemon", "dbus-send", "/usr/bin/python3"]) else { return }
        let directory = try RuntimeDirectory(owner: (getuid(), getgid()), prefix: "kbadapter-owner")
        let bus = try SessionBus(directory: directory.path, home: directory.home)
        defer { bus.stop() }
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        let script = try directory.write("peer.py", Self.peer)
        let stub = directory.path + "/phosh-osk-stub"
        try FileManager.default.createSymbolicLink(atPath: stub, withDestinationPath: "/usr/bin/python3")
        let stevia = directory.path + "/phosh-osk-stevia"
        try FileManager.default.createSymbolicLink(atPath: stevia, withDestinationPath: "/usr/bin/python3")
        func peer(_ program: String) throws -> ChildProcess {
            let process = try ChildProcess(program, [script], environment: environment, directory: directory.path)
            try bus.waitForName("sm.puri.OSK0")
            return process
        }

        let first = try peer(stub)
        defer { first.stop() }
        let service = DBusKeyboardService.squeekboard(environment: environment)
        #expect(service.keyboardName == "squeekboard", "not started: the interface's name")
        let loop = try KeyboardRunLoop()
        try loop.start()
        defer { loop.stop() }
        try loop.performAndWait { context in service.start(in: context) { _ in } }
        defer { try? loop.performAndWait { service.stop() } }
        #expect(service.state.pid == first.pid, "\(service.state)")
        #expect(service.keyboardName == "phosh-osk-stub")

        first.stop()
        try Wait.require("the name to lose its owner (\(service.state))", timeout: 10) { !service.state.isRunning }
        #expect(service.keyboardName == "squeekboard")

        let other = try peer("/usr/bin/python3")
        defer { other.stop() }
        try Wait.require("python3's pid (\(service.state))", timeout: 10) { service.state.pid == other.pid }
        #expect(service.keyboardName == "python3", "any program: its own name")
        other.stop()
        try Wait.require("the name to lose its owner (\(service.state))", timeout: 10) { !service.state.isRunning }

        let later = try peer(stevia)
        defer { later.stop() }
        try Wait.require("the later owner's pid (\(service.state))", timeout: 10) { service.state.pid == later.pid }
        #expect(service.keyboardName == "phosh-osk-stevia", "made whole from the command line")
    }

    /// Owns `sm.puri.OSK0` with a boolean `Visible` that stays false.
    static let peer = """
        from gi.repository import Gio, GLib

        XML = '''<node><interface name="sm.puri.OSK0">
          <method name="SetVisible"><arg type="b" direction="in"/></method>
          <property name="Visible" type="b" access="read"/>
        </interface></node>'''

        def call(connection, sender, path, interface, method, parameters, invocation):
            invocation.return_value(None)

        def get(connection, sender, path, interface, name):
            return GLib.Variant("b", False)

        connection = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        connection.register_object(
            "/sm/puri/OSK0", Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0], call, get, None)
        Gio.bus_own_name_on_connection(connection, "sm.puri.OSK0", Gio.BusNameOwnerFlags.NONE, None, None)
        GLib.MainLoop().run()

        """
}
