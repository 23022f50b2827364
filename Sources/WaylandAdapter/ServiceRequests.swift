import KeyboardAdapterCore

/// Show and hide on Wayland: a client cannot touch another client's surface, so only the
/// keyboard's own service can be asked.
extension WaylandBackend {
    /// Asks a keyboard to show through the first keyboard service that runs (squeekboard's
    /// `SetVisible(true)`); without one it is unsupported, with the reason.
    public func requestShow(completion: @escaping @Sendable (Result<Void, KeyboardControlError>) -> Void) {
        guard let service = services.first(where: { $0.state.isRunning }) else {
            return completion(.failure(.unsupported(unsupportedReason(doing: "show"))))
        }
        service.requestVisible(true, completion: completion)
    }

    /// Asks `keyboards` to hide through their services (squeekboard's `SetVisible(false)`); with
    /// no keyboard visible, every running service is asked. A keyboard no running service claims
    /// cannot be hidden on Wayland: unsupported, with the reason.
    public func requestHide(
        of keyboards: [KeyboardIdentity], completion: @escaping @Sendable (Result<Void, KeyboardControlError>) -> Void
    ) {
        let running = services.filter { $0.state.isRunning }
        let asked =
            keyboards.isEmpty
            ? running : running.filter { service in keyboards.contains { $0.name == service.keyboardName } }
        guard !asked.isEmpty else {
            if keyboards.isEmpty, !running.isEmpty { return completion(.failure(.notVisible("keyboard"))) }
            return completion(.failure(.unsupported(unsupportedReason(doing: "hide"))))
        }
        let group = KeyboardRequestGroup(count: asked.count, completion: completion)
        for service in asked { service.requestVisible(false, completion: group.finish) }
    }

    /// Why a keyboard cannot be shown or hidden here, for people.
    func unsupportedReason(doing what: String, states: [KeyboardServiceState]? = nil) -> String {
        let why = "a Wayland client cannot \(what) another program's keyboard; only the keyboard's own service can"
        guard !services.isEmpty else { return why + " (this backend has no keyboard services)" }
        let states = states ?? services.map(\.state)
        let said = zip(services, states).map { "\($0.name): \($1)" }.joined(separator: "; ")
        return "no keyboard service is running (\(said)); " + why
    }

    /// The lines `--doctor` prints about the services: what each says (asked now, never starting
    /// a keyboard), whether a strip reserved now agrees, and how show and hide are done here.
    func serviceDiagnosis(insets: [Edge: Int]) -> [String] {
        guard !services.isEmpty else { return [] }
        var lines: [String] = []
        var running: [String] = []
        let states = services.map { $0.probe() }
        for (service, state) in zip(services, states) {
            lines.append("keyboard service \(service.name) (\(service.address)): \(state)")
            guard state.isRunning else { continue }
            running.append(service.name)
            if let visible = state.isVisible, let edge = service.dockedEdge {
                let reserved = insets[edge] ?? 0
                lines.append(
                    "\(service.name) says \(visible ? "visible" : "hidden"); \(reserved) px are reserved at the "
                        + "\(edge.rawValue) edge now"
                        + (visible
                            ? " (watching now, that strip is reported as \(service.name), as an upper bound until it hides once)"
                            : ""))
            }
        }
        if running.isEmpty {
            lines.append("show: unsupported: " + unsupportedReason(doing: "show", states: states))
            lines.append("hide: unsupported: " + unsupportedReason(doing: "hide", states: states))
        } else {
            lines.append("show and hide: through \(running.joined(separator: ", "))'s service")
            lines.append(
                "strips at its edge are named \(running.joined(separator: ", ")) while it is the only keyboard service running"
            )
        }
        return lines
    }
}
