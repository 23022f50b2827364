import KeyboardServices
import SystemdBus
import Testing

/// Which session bus addresses a sandboxed connection starts paced (see `ka_bus_start_paced`).
@Suite("the paced start's addresses")
struct PacedAddressTests {
    @Test(
        "in a sandbox a unix socket's path or abstract name, else nothing",
        arguments: [
            ("unix:path=/run/flatpak/bus", true, "/run/flatpak/bus"),
            ("unix:path=/run/user/1000/bus,guid=0123456789abcdef", true, "/run/user/1000/bus"),
            ("unix:abstract=/tmp/dbus-AbC", true, "@/tmp/dbus-AbC"),
            ("unix:path=/run/flatpak/bus", false, nil),
            ("unix:path=/a%20b", true, nil),
            ("unix:path=/a;unix:path=/b", true, nil),
            ("tcp:host=localhost,port=1234", true, nil),
            ("unix:path=", true, nil),
        ] as [(String, Bool, String?)])
    func addresses(address: String, sandboxed: Bool, socket: String?) {
        #expect(BusConnection.pacedSocket(address, sandboxed: sandboxed) == socket)
    }
}
