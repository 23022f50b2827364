import KeyboardBackendInterface
import SystemdBus

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension DBusKeyboardService {
    /// onboard's service: `org.onboard.Onboard` at `/org/onboard/Onboard/Keyboard`, interface
    /// `org.onboard.Onboard.Keyboard`, methods `Show` and `Hide`, property `Visible` (with
    /// PropertiesChanged). onboard is D-Bus activatable: this service never activates it.
    public static func onboard(
        environment: [String: String] = ProcessEnvironment.current
    ) -> DBusKeyboardService {
        DBusKeyboardService(
            interface: ServiceInterface(
                name: "onboard", keyboardName: "onboard", busName: "org.onboard.Onboard",
                objectPath: "/org/onboard/Onboard/Keyboard", interface: "org.onboard.Onboard.Keyboard",
                visibleProperty: "Visible", request: { visible in .method(visible ? "Show" : "Hide", []) }),
            environment: environment)
    }
}
