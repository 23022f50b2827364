import CSystemd
import CX11
import Glibc
import KeyboardAdapter

// kbforeign: an app that links libX11 and libsystemd itself beside the package, as a GTK app does,
// and uses both before the package does. It asks the session bus for its id with its own sd-bus
// calls, starts a keyboard manager for the session (the package loads libsystemd and the X
// libraries no sooner), asks again, and prints one line per step:
//   display: opened            (or "display: none" without an X server)
//   before: BUS-ID
//   manager: BACKEND
//   after: BUS-ID
// Exits 1, with the failing call on standard error, when a call of its own fails.

/// Ends the app with `message` on standard error.
func fail(_ message: String) -> Never {
    let line = Array("kbforeign: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

/// The session bus's id (`org.freedesktop.DBus.GetId`), through the app's own sd-bus calls.
func busID() -> String {
    var opened: OpaquePointer?
    var status = sd_bus_open_user(&opened)
    guard status >= 0, let bus = opened else { fail("sd_bus_open_user: \(String(cString: strerror(-status)))") }
    defer { sd_bus_flush_close_unref(bus) }
    var made: OpaquePointer?
    status = sd_bus_message_new_method_call(
        bus, &made, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")
    guard status >= 0, let call = made else {
        fail("sd_bus_message_new_method_call: \(String(cString: strerror(-status)))")
    }
    defer { sd_bus_message_unref(call) }
    var error = sd_bus_error()
    defer { sd_bus_error_free(&error) }
    var answered: OpaquePointer?
    status = sd_bus_call(bus, call, 5_000_000, &error, &answered)
    guard status >= 0, let reply = answered else {
        fail("sd_bus_call: \(error.message.map { String(cString: $0) } ?? String(cString: strerror(-status)))")
    }
    defer { sd_bus_message_unref(reply) }
    var id: UnsafePointer<CChar>?
    status = sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "s")), &id)
    guard status > 0, let id else { fail("sd_bus_message_read_basic: \(String(cString: strerror(-status)))") }
    return String(cString: id)
}

if let display = XOpenDisplay(nil) {
    print("display: opened")
    XCloseDisplay(display)
} else {
    print("display: none")
}
print("before: \(busID())")
do {
    let manager = try KeyboardManager.forThisSession()
    try manager.start()
    print("manager: \(manager.backendName)")
    print("after: \(busID())")
    manager.stop()
} catch {
    fail("the keyboard manager: \(error)")
}
