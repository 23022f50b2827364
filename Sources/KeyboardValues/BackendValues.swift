import Glibc

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Whether a backend can run in this session.
public enum BackendAvailability: Sendable, Hashable {
    /// It can run; the detail says what it found (for example the display it will use).
    case available(detail: String)
    /// Its display server cannot be reached (not set, or nothing answers), and why.
    case unreachable(reason: String)
    /// The display server answers but lacks what the backend needs, and why.
    case unavailable(reason: String)

    /// True when the backend can run.
    public var isAvailable: Bool {
        if case .available = self { return true }
        return false
    }

    /// The detail or the reason.
    public var explanation: String {
        switch self {
        case .available(let detail): detail
        case .unreachable(let reason), .unavailable(let reason): reason
        }
    }
}

/// What a backend can tell about keyboards.
public struct BackendCapabilities: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int
    /// Creates a set from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Reports the keyboard's own frame (not only the space it reserves).
    public static let reportsFrames = BackendCapabilities(rawValue: 1 << 0)
    /// Sees floating (undocked) keyboards.
    public static let reportsFloating = BackendCapabilities(rawValue: 1 << 1)
    /// Tells docked keyboards from floating ones.
    public static let reportsDocking = BackendCapabilities(rawValue: 1 << 2)
    /// Tells whether a keyboard came up for this app.
    public static let reportsOwnership = BackendCapabilities(rawValue: 1 << 3)
    /// Reports the active input layout.
    public static let reportsLayout = BackendCapabilities(rawValue: 1 << 4)
    /// Reports which output a keyboard is on.
    public static let reportsOutputs = BackendCapabilities(rawValue: 1 << 5)
    /// Sees input-method panels as well as keyboards.
    public static let reportsInputMethodPanels = BackendCapabilities(rawValue: 1 << 6)
    /// Can ask a visible keyboard to hide (`KeyboardManager.hideKeyboard()`).
    public static let hidesKeyboards = BackendCapabilities(rawValue: 1 << 8)
    /// Can ask a keyboard to show (`KeyboardManager.showKeyboard()`) when the keyboard's own
    /// service runs: nothing else can bring back a keyboard that withdrew its window.
    public static let showsKeyboards = BackendCapabilities(rawValue: 1 << 9)
    /// Plays observations on a clock of its own (replay): the events do not depend on how fast
    /// they are played.
    public static let drivesClock = BackendCapabilities(rawValue: 1 << 7)
}

/// Why a backend stopped on its own.
public struct BackendFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, which decides what becomes of the keyboards already seen.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The display server went away: every visible keyboard is hidden.
        case connectionLost
        /// The input (a recording) is malformed: what was delivered before stands, nothing is invented.
        case malformedInput
        /// Anything else; keyboards are hidden as for a lost connection.
        case other
    }

    /// The backend's name.
    public var backend: String
    /// What kind of failure this is.
    public var kind: Kind
    /// A one-line reason, such as `lost the connection to the X server :1`.
    public var reason: String

    /// Creates a failure.
    public init(backend: String, kind: Kind = .connectionLost, reason: String) {
        self.backend = backend
        self.kind = kind
        self.reason = reason
    }

    /// `backend: reason`.
    public var description: String { "\(backend): \(reason)" }
}

/// Why a keyboard could not be asked to hide.
public enum KeyboardControlError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The backend (or this keyboard) offers no way to do it.
    case unsupported(String)
    /// The keyboard with this id is not visible; with an empty id, no keyboard is.
    case notVisible(String)
    /// The request could not be sent.
    case failed(String)

    /// One line for people.
    public var description: String {
        switch self {
        case .unsupported(let reason), .failed(let reason): reason
        case .notVisible(let id): id.isEmpty ? "no keyboard is visible" : "the keyboard \(id) is not visible"
        }
    }
}

/// The app whose keyboards count as local: its processes, its top-level windows and its app ids.
/// A keyboard is local when it comes up while something matching any of these has the focus;
/// each backend compares what its display server tells about the focused top-level (see the
/// `local` row of each backend's table in docs/backends.md).
public struct AppIdentity: Sendable, Hashable {
    /// Process ids of the app (the current process by default).
    public var processIDs: [Int32]
    /// Window ids of the app's top-level windows (X11 window ids).
    public var windowIDs: [UInt64]
    /// The app's ids as display servers name apps: a Wayland `app_id` (GTK takes it from the
    /// program name or the GApplication id), an X11 `WM_CLASS` class or instance, or a desktop
    /// file id, with or without `.desktop` (compositors name apps after their desktop files).
    /// Compared exactly (case matters); one longer than ``maximumAppIDBytes`` never matches.
    public var appIDs: [String]

    /// The longest app id compared, in UTF-8 bytes. Display servers pass app ids from any client,
    /// so backends keep at most this much of one (a longer one matches nothing); real ids are
    /// reverse domain names far shorter than this.
    public static let maximumAppIDBytes = 256

    /// Creates an identity.
    public init(processIDs: [Int32] = [], windowIDs: [UInt64] = [], appIDs: [String] = []) {
        self.processIDs = processIDs
        self.windowIDs = windowIDs
        self.appIDs = appIDs
    }

    /// The current process.
    public static var currentProcess: AppIdentity { AppIdentity(processIDs: [getpid()]) }

    /// Whether an app id a display server reports (`app_id`, a `WM_CLASS` part, a desktop file
    /// id) is one of ``appIDs``: equal, once a `.desktop` suffix is dropped from either side.
    package func includes(appID: String) -> Bool {
        guard !appID.isEmpty, appID.utf8.count <= Self.maximumAppIDBytes else { return false }
        let reported = Self.withoutDesktopSuffix(appID)
        return appIDs.contains { $0.utf8.count <= Self.maximumAppIDBytes && Self.withoutDesktopSuffix($0) == reported }
    }

    private static func withoutDesktopSuffix(_ id: String) -> Substring {
        id.hasSuffix(".desktop") && id.count > 8 ? id.dropLast(8) : id[...]
    }
}
