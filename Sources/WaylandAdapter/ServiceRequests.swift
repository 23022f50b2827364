import KeyboardBackendInterface

/// Show and hide on Wayland: a client cannot touch another client's surface, so only the
/// keyboard's own service can be asked.
extension WaylandBackend {
    /// A Wayland client cannot touch another client's surface: only a keyboard's own service can
    /// show or hide it.
    public func requestLimitation(_ what: String) -> String {
        "a Wayland client cannot \(what) another program's keyboard; only the keyboard's own service can"
    }

    /// The lines `--doctor` prints about the services: what each says (asked now, never starting
    /// a keyboard), whether a strip reserved now agrees, and how show and hide are done here.
    func serviceDiagnosis(insets: [Edge: Int]) -> [String] {
        guard !services.isEmpty else { return [] }
        var lines: [String] = []
        var running: [String] = []
        let states = services.map { $0.probe() }
        for (service, state) in zip(services, states) {
            let served = service.keyboardName == service.name ? "" : ", served by \(service.keyboardName)"
            lines.append("keyboard service \(service.name) (\(service.address)): \(state)\(served)")
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
            lines.append("show: unsupported: " + KeyboardRequestRouting.reason(self, doing: "show", states: states))
            lines.append("hide: unsupported: " + KeyboardRequestRouting.reason(self, doing: "hide", states: states))
        } else {
            lines.append("show and hide: through \(running.joined(separator: ", "))'s service")
            lines.append(
                "strips at its edge are named \(running.joined(separator: ", ")) while it is the only keyboard service running"
            )
        }
        return lines
    }
}
