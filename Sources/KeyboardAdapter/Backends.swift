import Glibc
import GnomeAdapter
import KWinAdapter
import KeyboardAdapterCore
import KeyboardBackendInterface
import KeyboardServices
import WaylandAdapter
import X11Adapter

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The display-server backends this package ships, and their registration (like swift-log's
/// `LoggingSystem.bootstrap`, but additive and idempotent).
public enum KeyboardAdapterBackends {
    /// Every shipped backend's registration. The x11 backend is joined with onboard's service,
    /// the wayland backend with squeekboard's, the kwin backend with KWin's virtual keyboard, the
    /// gnome backend with the package's GNOME Shell extension.
    public static var registrations: [BackendRegistry.Registration] {
        [x11, wayland, kwin, gnome]
    }

    /// gnome with the package's GNOME Shell extension: frames at every step of the slide, show and hide.
    public static let gnome = GnomeBackend.registration(service: { GnomeShellKeyboardService() })

    /// kwin with KWin's virtual-keyboard service: visibility, show and hide through KWin.
    public static let kwin = KWinBackend.registration(service: { DBusKeyboardService.kwinVirtualKeyboard() })

    /// x11 with onboard's D-Bus service: onboard's own Show and Hide, its pid from the bus.
    public static let x11 = BackendRegistry.Registration(
        name: X11Backend.registration.name, hint: X11Backend.registration.hint,
        make: { X11Backend(services: [DBusKeyboardService.onboard()]) })

    /// wayland with squeekboard's D-Bus service: the strips it reserves named, a keyboard up at start
    /// reported, show and hide through `SetVisible`.
    public static let wayland = BackendRegistry.Registration(
        name: WaylandBackend.registration.name, hint: WaylandBackend.registration.hint,
        make: { WaylandBackend(services: [DBusKeyboardService.squeekboard()]) })

    /// Registers every shipped backend in `registry`; calling it again changes nothing.
    public static func register(in registry: BackendRegistry = .shared) {
        registrations.forEach(registry.register)
    }
}

extension KeyboardManager {
    /// A manager for the backend that fits this session, chosen among the shipped backends:
    /// `name` if given, else `KEYBOARD_ADAPTER_BACKEND`, else the session's variables.
    public static func forThisSession(
        backend name: String? = nil,
        configuration: Configuration = Configuration()
    ) throws -> KeyboardManager {
        KeyboardAdapterBackends.register()
        return try KeyboardManager(backendNamed: name, configuration: configuration)
    }
}
