/// What a keyboard's own service says, as last heard.
public struct KeyboardServiceState: Sendable, Hashable, CustomStringConvertible {
    /// Whether the service can be heard at all.
    public enum Status: Sendable, Hashable {
        /// Not asked yet (the service has not started).
        case unknown
        /// The bus the service lives on cannot be used, and why (no session bus, the bus went away).
        case busUnavailable(String)
        /// The bus answers, but no program serves the keyboard's name: the keyboard is not running.
        case notRunning
        /// The keyboard's program serves its name.
        case running
    }

    /// Whether the service can be heard.
    public var status: Status
    /// The keyboard's own word on whether it is visible; nil when unknown (not running, or it
    /// said something that is not a boolean).
    public var isVisible: Bool?
    /// The process id of the program serving the name, as the bus tells it.
    public var pid: Int32?
    /// The last thing the service sent that could not be used (a wrong type, an error reply),
    /// for `kbwatch --doctor`; nil when nothing went wrong.
    public var problem: String?
    /// What the package's companion inside the compositor reports (KWin 6's script, the GNOME
    /// Shell extension), nil when no companion runs: then only ``isVisible`` tells whether the
    /// keyboard is up. The companions' wire model is the package's own business, between its
    /// services and its backends: apps see what the backends make of it.
    package var companion: CompanionReport?
    /// What the companion is doing or why there is none, for the backend's `--doctor` lines;
    /// nil when the service has no companion.
    package var companionStatus: String?

    /// Creates a state.
    public init(status: Status, isVisible: Bool? = nil, pid: Int32? = nil, problem: String? = nil) {
        self.status = status
        self.isVisible = isVisible
        self.pid = pid
        self.problem = problem
    }

    /// Creates a state with what the package's companion reports.
    package init(
        status: Status, isVisible: Bool? = nil, pid: Int32? = nil, problem: String? = nil,
        companion: CompanionReport? = nil, companionStatus: String?
    ) {
        self.init(status: status, isVisible: isVisible, pid: pid, problem: problem)
        self.companion = companion
        self.companionStatus = companionStatus
    }

    /// True when the keyboard's program serves its name.
    public var isRunning: Bool { status == .running }

    /// One line for people: `running, visible, pid 4242`, `not running`, `no session bus: ...`.
    public var description: String {
        var parts: [String]
        switch status {
        case .unknown: parts = ["not asked yet"]
        case .busUnavailable(let reason): parts = [reason]
        case .notRunning: parts = ["not running"]
        case .running:
            parts = ["running", isVisible.map { $0 ? "visible" : "hidden" } ?? "visibility unknown"]
            if let pid { parts.append("pid \(pid)") }
        }
        if let problem { parts.append("problem: \(problem)") }
        return parts.joined(separator: ", ")
    }
}

/// What one keyboard service says, as a value (for `kbwatch --state` and reports).
public struct KeyboardServiceReport: Sendable, Hashable {
    /// The service's name, such as `onboard`.
    public var name: String
    /// Where it lives, such as `org.onboard.Onboard on the session bus`.
    public var address: String
    /// What it says.
    public var state: KeyboardServiceState
    /// The name its keyboards bear (a keyboard service's `keyboardName`): on squeekboard's interface
    /// the program that serves it, such as `phosh-osk-stevia`; nil when not known.
    public var keyboard: String?

    /// Creates a report.
    public init(name: String, address: String, state: KeyboardServiceState, keyboard: String? = nil) {
        self.name = name
        self.address = address
        self.state = state
        self.keyboard = keyboard
    }
}
