/// Why no backend could be selected.
public enum BackendSelectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The named backend is not registered.
    case unknownBackend(name: String, known: [String])
    /// The chosen backend cannot run; the reason comes from its availability check.
    case unavailable(name: String, reason: String)
    /// No backend fits this session; each registered backend with why it does not.
    case noneAvailable(reasons: [(name: String, reason: String)])
    /// No display server can be reached: no session variable is set, or nothing answers.
    case noDisplayServer(reasons: [(name: String, reason: String)])

    /// One line for people.
    public var description: String {
        switch self {
        case .unknownBackend(let name, let known):
            "unknown backend '\(name)' (known: \(known.joined(separator: ", ")))"
        case .unavailable(let name, let reason):
            "backend '\(name)' is unavailable: \(reason)"
        case .noneAvailable(let reasons):
            "no keyboard backend is available: "
                + reasons.map { "\($0.name): \($0.reason)" }.joined(separator: "; ")
        case .noDisplayServer(let reasons):
            "no display server is reachable: "
                + reasons.map { "\($0.name): \($0.reason)" }.joined(separator: "; ")
        }
    }

    /// Equality by description (the tuple array is not Hashable).
    public static func == (a: Self, b: Self) -> Bool { a.description == b.description }
    /// Hash of the description.
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }
}
