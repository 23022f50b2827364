import Synchronization

/// How a registered backend recognises its session from the environment.
public struct BackendSessionHint: Sendable, Hashable {
    /// Variables whose presence means the backend's display server is reachable (`DISPLAY`).
    public var variables: [String]
    /// The `XDG_SESSION_TYPE` value of its sessions (`x11`), used to break ties; nil for a
    /// backend that fits sessions of every type (GNOME's, Xorg or Wayland).
    public var sessionType: String?
    /// Which backend is tried first when several fit and `XDG_SESSION_TYPE` does not decide:
    /// the higher, the earlier. (A Wayland session also sets `DISPLAY` for XWayland, so the
    /// Wayland backend ranks above the X11 one.)
    public var priority: Int

    /// Creates a hint.
    public init(variables: [String], sessionType: String? = nil, priority: Int = 0) {
        self.variables = variables
        self.sessionType = sessionType
        self.priority = priority
    }
}

/// The backends a process knows, by name. Backends register themselves (the `KeyboardAdapter`
/// umbrella registers x11 and wayland); the core knows none of them by name.
public final class BackendRegistry: Sendable {
    /// One registered backend: all a program needs to know of it, so that none names it.
    public struct Registration: Sendable {
        /// The backend's name.
        public var name: String
        /// How to recognise its session.
        public var hint: BackendSessionHint
        /// Makes a fresh backend instance, joined with its keyboard services.
        public var make: @Sendable () -> any KeyboardBackend
        /// What is set up for the backend on this machine, beyond what a running backend
        /// diagnoses itself (GNOME: the extension's installed files), as lines for `--doctor`;
        /// asked whenever the backend's display server can be reached, given the environment.
        public var setupLines: @Sendable (_ environment: [String: String]) -> [String]

        /// Creates a registration.
        public init(
            name: String, hint: BackendSessionHint, make: @escaping @Sendable () -> any KeyboardBackend,
            setupLines: @escaping @Sendable (_ environment: [String: String]) -> [String] = { _ in [] }
        ) {
            self.name = name
            self.hint = hint
            self.make = make
            self.setupLines = setupLines
        }

        /// This registration with `lines` telling what is set up for it (see ``setupLines``).
        public func reporting(setup lines: @escaping @Sendable (_ environment: [String: String]) -> [String]) -> Self {
            var copy = self
            copy.setupLines = lines
            return copy
        }
    }

    /// The process-wide registry.
    public static let shared = BackendRegistry()

    /// The variable that names a backend explicitly.
    public static let environmentVariable = "KEYBOARD_ADAPTER_BACKEND"

    private let registrations = Mutex<[Registration]>([])

    /// Creates an empty registry (tests use their own).
    public init() {}

    /// Adds a backend, replacing one registered under the same name. The one replaced is let go
    /// of after the registry's lock is released: its closure may hold the app's objects, whose
    /// deinit may use the registry.
    public func register(_ registration: Registration) {
        let replaced = registrations.withLock { list in
            let replaced = list.filter { $0.name == registration.name }
            list.removeAll { $0.name == registration.name }
            list.append(registration)
            return replaced
        }
        withExtendedLifetime(replaced) {}
    }

    /// The registered backends, in registration order.
    public var all: [Registration] { registrations.withLock { $0 } }

    /// The registration for a name.
    public func registration(named name: String) -> Registration? {
        all.first { $0.name == name }
    }

    /// Chooses a backend: `name` if given, else `KEYBOARD_ADAPTER_BACKEND`, else the backends whose
    /// session variables are set (`XDG_SESSION_TYPE` first when several are), falling back to the
    /// next candidate when one is unavailable. Throws an error naming every backend and why it
    /// cannot run when none can.
    public func select(name: String? = nil, environment: [String: String]) throws(BackendSelectionError)
        -> any KeyboardBackend
    {
        let list = all
        if let wanted = name ?? environment[Self.environmentVariable].flatMap({ $0.isEmpty ? nil : $0 }) {
            guard let registration = list.first(where: { $0.name == wanted }) else {
                throw .unknownBackend(name: wanted, known: list.map(\.name))
            }
            let backend = registration.make()
            switch backend.availability() {
            case .available: return backend
            case .unreachable(let reason): throw .noDisplayServer(reasons: [(wanted, reason)])
            case .unavailable(let reason): throw .unavailable(name: wanted, reason: reason)
            }
        }
        var reasons: [(name: String, reason: String)] = []
        var reachable = false
        for registration in candidates(list, environment: environment) {
            let backend = registration.make()
            switch backend.availability() {
            case .available: return backend
            case .unreachable(let reason): reasons.append((registration.name, reason))
            case .unavailable(let reason):
                reachable = true
                reasons.append((registration.name, reason))
            }
        }
        for registration in list where !reasons.contains(where: { $0.name == registration.name }) {
            let variables = registration.hint.variables.joined(separator: " or ")
            reasons.append((registration.name, "\(variables) is not set"))
        }
        throw reachable ? .noneAvailable(reasons: reasons) : .noDisplayServer(reasons: reasons)
    }

    /// The registrations whose session variables are set, those matching `XDG_SESSION_TYPE` (or
    /// fitting every type) first, each group by priority.
    func candidates(_ list: [Registration], environment: [String: String]) -> [Registration] {
        let present = list.filter { registration in
            registration.hint.variables.contains { environment[$0].map { !$0.isEmpty } ?? false }
        }.enumerated().sorted { a, b in
            a.element.hint.priority != b.element.hint.priority
                ? a.element.hint.priority > b.element.hint.priority : a.offset < b.offset
        }.map(\.element)
        let session = environment["XDG_SESSION_TYPE"]
        let fits = { (registration: Registration) in
            registration.hint.sessionType == nil || registration.hint.sessionType == session
        }
        return present.filter(fits) + present.filter { !fits($0) }
    }
}
