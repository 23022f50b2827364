import KeyboardBackendInterface
import SystemdBus

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension DBusKeyboardService {
    /// squeekboard's service: `sm.puri.OSK0` at `/sm/puri/OSK0`, interface `sm.puri.OSK0`, method
    /// `SetVisible(b)`, property `Visible` (with PropertiesChanged). squeekboard 1.21 has no
    /// `GetVisible` method: the property is read through `org.freedesktop.DBus.Properties`.
    /// squeekboard always docks at the bottom of its output. Phosh's own keyboard (phosh-osk-stub,
    /// now Stevia, `phosh-osk-stevia`) and others serve the same interface and dock there too: a
    /// keyboard is named after the program that owns the name.
    public static func squeekboard(
        environment: [String: String] = ProcessEnvironment.current
    ) -> DBusKeyboardService {
        DBusKeyboardService(
            interface: ServiceInterface(
                name: "squeekboard", keyboardName: "squeekboard", namesKeyboardByOwner: true,
                busName: "sm.puri.OSK0", objectPath: "/sm/puri/OSK0", interface: "sm.puri.OSK0",
                visibleProperty: "Visible", dockedEdge: .bottom,
                request: { visible in .method("SetVisible", [.bool(visible)]) }),
            environment: environment)
    }
}
