import Foundation

/// A stranger on a session bus: a process of its own (Python with GDBus) that addresses signals
/// to the connections of another process, as anyone on the bus can, whatever those connections'
/// match rules say. What a watcher believes of such a signal is a bug.
public enum ForgedSignals {
    /// Sends, from a connection of its own (as `user`, whom the bus must let in; else as the test
    /// process), `signal` to every connection of process `pid` on the bus at `address`, and
    /// returns how many connections it was sent to.
    @discardableResult
    public static func send(
        _ signal: Signal, toConnectionsOf pid: Int32, bus address: String, as user: (uid: uid_t, gid: gid_t)? = nil
    ) throws -> Int {
        let command = ["/usr/bin/python3", "-c", script, String(pid)] + signal.arguments
        let (program, arguments) =
            user.map { TestUser.command(command, as: $0) } ?? (command[0], Array(command.dropFirst()))
        let (status, output) = try Programs.run(
            program, arguments, environment: ["DBUS_SESSION_BUS_ADDRESS": address], timeout: 30)
        guard status == 0, let count = Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestFailure("the forger failed: \(output)")
        }
        return count
    }

    /// Sends each of `signals` to the connections of `watcher` (a kbwatch printing lines), and
    /// throws unless, half a second later, it has printed nothing more and still runs: a
    /// watcher that believed one would print an event, or change what it names the keyboard, which
    /// the caller's next real event checks.
    public static func expectIgnored(
        _ signals: [Signal], by watcher: WatchedProcess, bus address: String, as user: (uid: uid_t, gid: gid_t)? = nil
    ) throws {
        let before = watcher.lines.count
        for signal in signals {
            guard try send(signal, toConnectionsOf: watcher.pid, bus: address, as: user) >= 1 else {
                throw TestFailure("the forger found no connection of kbwatch (pid \(watcher.pid)) on \(address)")
            }
        }
        Thread.sleep(forTimeInterval: 0.5)
        let printed = watcher.lines.all.dropFirst(before).map(\.text)
        guard printed.isEmpty, watcher.isRunning else {
            throw TestFailure(
                "kbwatch believed a forged signal: printed \(printed), running \(watcher.isRunning): \(watcher.errors)")
        }
    }

    /// A signal to forge.
    public enum Signal: Sendable {
        /// The bus's `NameOwnerChanged(name, old, "")`: `name` lost its owner.
        case nameLost(String)
        /// The bus's `NameOwnerChanged(name, old, new)` naming the forger as the owner.
        case nameTaken(String)
        /// `PropertiesChanged(interface, {property: <true>}, [])` at `path`.
        case propertyTrue(path: String, interface: String, property: String)
        /// A signal with one string argument.
        case string(path: String, interface: String, member: String, value: String)
        /// A signal whose arguments are `value`, a tuple in GVariant's text format (for example
        /// `(true, uint64 7)`).
        case variant(path: String, interface: String, member: String, value: String)
        /// The session service's update (`a{sv}`, complete and well formed: believed, it would be
        /// printed) of a keyboard named `name`, as `member` of `interface` at `path`.
        case update(path: String, interface: String, member: String, name: String)

        var arguments: [String] {
            switch self {
            case .nameLost(let name): ["lost", name]
            case .nameTaken(let name): ["taken", name]
            case .propertyTrue(let path, let interface, let property): ["property", path, interface, property]
            case .string(let path, let interface, let member, let value): ["string", path, interface, member, value]
            case .variant(let path, let interface, let member, let value): ["variant", path, interface, member, value]
            case .update(let path, let interface, let member, let name): ["update", path, interface, member, name]
            }
        }
    }

    /// The forger: finds the target's connections by their pid, as the bus says, and emits the
    /// signal to each.
    static let script = """
        import sys
        sys.stderr = sys.stdout  # a failure says why
        from gi.repository import Gio, GLib

        bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)

        def driver(method, parameters):
            return bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", method,
                                 parameters, None, Gio.DBusCallFlags.NONE, -1, None).unpack()

        def pid_of(name):
            try:
                return driver("GetConnectionUnixProcessID", GLib.Variant("(s)", (name,)))[0]
            except GLib.Error:
                return None

        def owner_of(name):
            try:
                return driver("GetNameOwner", GLib.Variant("(s)", (name,)))[0]
            except GLib.Error:
                return ""

        target = int(sys.argv[1])
        kind = sys.argv[2]
        targets = [n for n in driver("ListNames", None)[0] if n.startswith(":") and pid_of(n) == target]
        for destination in targets:
            if kind == "lost":
                name = sys.argv[3]
                old = owner_of(name) or name
                bus.emit_signal(destination, "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged",
                                GLib.Variant("(sss)", (name, old, "")))
            elif kind == "taken":
                name = sys.argv[3]
                bus.emit_signal(destination, "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged",
                                GLib.Variant("(sss)", (name, owner_of(name), bus.get_unique_name())))
            elif kind == "property":
                path, interface, prop = sys.argv[3:6]
                bus.emit_signal(destination, path, "org.freedesktop.DBus.Properties", "PropertiesChanged",
                                GLib.Variant("(sa{sv}as)", (interface, {prop: GLib.Variant("b", True)}, [])))
            elif kind == "string":
                path, interface, member, value = sys.argv[3:7]
                bus.emit_signal(destination, path, interface, member, GLib.Variant("(s)", (value,)))
            elif kind == "variant":
                path, interface, member, value = sys.argv[3:7]
                bus.emit_signal(destination, path, interface, member, GLib.Variant.parse(None, value, None, None))
            elif kind == "update":
                path, interface, member, name = sys.argv[3:7]
                frame = GLib.Variant("(iiii)", (0, 600, 1280, 200))
                update = {
                    "event": GLib.Variant("s", "willShow"), "time": GLib.Variant("x", 1796213047959436),
                    "backend": GLib.Variant("s", "x11"),
                    "keyboard": GLib.Variant("a{sv}", {"id": GLib.Variant("s", "x11:0x1"), "name": GLib.Variant("s", name),
                                                       "kind": GLib.Variant("s", "keyboard")}),
                    "end_frame": frame, "begin_frame": frame, "docked": GLib.Variant("b", True),
                    "geometry": GLib.Variant("s", "reported"), "visible": GLib.Variant("b", True),
                    "show": GLib.Variant("u", 1), "local": GLib.Variant("b", False),
                    "animation_duration": GLib.Variant("d", 0.0), "animation_curve": GLib.Variant("s", "none"),
                    "end_frame_predicted": GLib.Variant("b", False), "timing": GLib.Variant("s", "unknown"),
                }
                bus.emit_signal(destination, path, interface, member, GLib.Variant("(a{sv})", (update,)))
        bus.flush_sync(None)
        print(len(targets))

        """
}
