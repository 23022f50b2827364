import KeyboardBackendInterface

/// What a running keyboard service says, as the reports use it: the reserved space tells where a
/// docked keyboard is, never whose it is; the service tells whose, and whether it is up.
struct ServiceClaim: Sendable, Hashable {
    /// The keyboard's name (`squeekboard`, or the program serving squeekboard's interface, such as `phosh-osk-stevia`).
    var name: String
    /// The pid of the program serving the name on the bus.
    var pid: Int32?
    /// The edge the keyboard always docks at; nil when it can be anywhere.
    var edge: Edge?
    /// The keyboard's own word on whether it is up; nil when it has not said.
    var isVisible: Bool?

    /// The claims of the services that run now (a service that does not run claims nothing).
    static func running(_ services: [any KeyboardService]) -> [ServiceClaim] {
        services.compactMap { service in
            let state = service.state
            guard state.isRunning else { return nil }
            return ServiceClaim(
                name: service.keyboardName, pid: state.pid, edge: service.dockedEdge, isVisible: state.isVisible)
        }
    }
}

extension [ServiceClaim] {
    /// Whose a strip reserved at `edge` is: the one running keyboard service that docks there.
    ///
    /// The attribution rule, and why: squeekboard's `Visible` turns true a few milliseconds
    /// *after* its zone appears, so waiting for it would delay every show; but when exactly one
    /// keyboard service runs on the session bus and its keyboard docks at that edge, the strip
    /// that appears there is its keyboard's. With two candidates, or none, the strip stays
    /// anonymous ("docked keyboard"), as without services.
    func claimant(at edge: Edge) -> ServiceClaim? {
        let candidates = filter { $0.edge == nil || $0.edge == edge }
        return candidates.count == 1 ? candidates[0] : nil
    }
}
