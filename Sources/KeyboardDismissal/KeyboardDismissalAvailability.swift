import KeyboardAdapterCore

/// Whether a drag or a tap can dismiss the keyboard in this session, and how: known before the
/// gesture begins, so that an app leaves the gesture off where the keyboard cannot be hidden on
/// request rather than letting the bar follow a finger for nothing.
public enum KeyboardDismissalAvailability: Sendable, Hashable, CustomStringConvertible {
    /// The keyboard's own service (onboard's `Hide`, squeekboard's `SetVisible`) hides it, and
    /// slides it out as it does on its own.
    case throughService(String)
    /// The display server hides it (X11: the window manager iconifies the keyboard's window).
    case throughDisplayServer
    /// Nothing can hide a keyboard here, and why (a Wayland session whose keyboard service is
    /// not running, a replay).
    case unavailable(String)

    /// Decides from what the backend can do and what its keyboards' services say: a running
    /// service first (as `KeyboardManager.hideKeyboard` routes the request), else the display
    /// server's own way when the backend has one (`displayServerHides`), else unavailable.
    public init(
        backendName: String, capabilities: BackendCapabilities, services: [KeyboardServiceReport],
        displayServerHides: Bool
    ) {
        if let running = services.first(where: { $0.state.isRunning }) {
            self = .throughService(running.name)
        } else if !capabilities.contains(.hidesKeyboards) {
            self = .unavailable("the \(backendName) backend cannot hide keyboards")
        } else if displayServerHides {
            self = .throughDisplayServer
        } else {
            let said = services.map { "\($0.name): \($0.state)" }.joined(separator: "; ")
            self = .unavailable(
                "only a keyboard's own service can hide it on the \(backendName) backend, and none is running"
                    + (said.isEmpty ? "" : " (\(said))"))
        }
    }

    /// True unless ``unavailable(_:)``.
    public var isAvailable: Bool {
        if case .unavailable = self { return false }
        return true
    }

    /// One line for people: `through onboard`, `through the display server`, or the reason.
    public var description: String {
        switch self {
        case .throughService(let name): "through \(name)"
        case .throughDisplayServer: "through the display server"
        case .unavailable(let reason): "unavailable: \(reason)"
        }
    }
}

extension KeyboardManager {
    /// Whether the keyboard can be hidden on request right now (so dismissed by a drag or a
    /// tap), from ``/KeyboardAdapterCore/KeyboardManager/capabilities`` and ``/KeyboardAdapterCore/KeyboardManager/keyboardServices``: ask it when a text field gains the
    /// focus, since a keyboard service may start or stop while the app runs.
    public var dismissalAvailability: KeyboardDismissalAvailability {
        KeyboardDismissalAvailability(
            backendName: backendName, capabilities: capabilities, services: keyboardServices,
            displayServerHides: backend.hidesWithoutService)
    }
}
