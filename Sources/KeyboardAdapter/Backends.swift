import Glibc
import KeyboardAdapterCore
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
    /// Every shipped backend's registration.
    public static var registrations: [BackendRegistry.Registration] {
        [X11Backend.registration, WaylandBackend.registration]
    }

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
