/// The one place that decides who is asked to show or hide a keyboard: a keyboard's own service
/// when it runs (it slides its keyboard properly and can bring back one that withdrew its
/// window), else the display server's own way (``KeyboardHiding/requestHide(of:)``: on X11 the
/// window manager iconifies the window). Backends offer only the latter.
package enum KeyboardRequestRouting {
    /// Asks the first running service to show its keyboard; without one, unsupported with the
    /// reason (what each service says, and why the display server cannot).
    package static func show(
        backend: any KeyboardBackend, completion: @escaping @Sendable (Result<Void, KeyboardControlError>) -> Void
    ) {
        guard let service = backend.services.first(where: { $0.state.isRunning }) else {
            return completion(.failure(.unsupported(reason(backend, doing: "show"))))
        }
        service.requestVisible(true, completion: completion)
    }

    /// Asks `keyboards` (the visible ones; empty when none is seen) to hide: each through its own
    /// running service, the rest the display server's way; with none visible, every running
    /// service. `completion` is called once, with the first failure or success.
    package static func hide(
        _ keyboards: [KeyboardIdentity], backend: any KeyboardBackend,
        completion: @escaping @Sendable (Result<Void, KeyboardControlError>) -> Void
    ) {
        let running = backend.services.filter { $0.state.isRunning }
        let serviced =
            keyboards.isEmpty
            ? running : running.filter { service in keyboards.contains { $0.name == service.keyboardName } }
        let others = keyboards.filter { keyboard in !serviced.contains { $0.keyboardName == keyboard.name } }
        guard !serviced.isEmpty || !others.isEmpty else { return completion(.failure(.notVisible(""))) }
        let group = KeyboardRequestGroup(count: serviced.count + others.count, completion: completion)
        for service in serviced { service.requestVisible(false, completion: group.finish) }
        for keyboard in others {
            do throws(KeyboardControlError) {
                try backend.requestHide(of: keyboard)
                group.finish(.success(()))
            } catch .unsupported(let why) where !backend.services.isEmpty {
                group.finish(.failure(.unsupported(reason(backend, doing: "hide", after: why))))
            } catch {
                group.finish(.failure(error))
            }
        }
    }

    /// Why nothing running can do it: what each service says (`states`, probed for `--doctor`, or
    /// what they said last), then the display server's limit (`why`, or the backend's own).
    package static func reason(
        _ backend: any KeyboardBackend, doing what: String, states: [KeyboardServiceState]? = nil,
        after why: String? = nil
    ) -> String {
        let limit = why ?? backend.requestLimitation(what)
        let services = backend.services
        guard !services.isEmpty else { return limit }
        let states = states ?? services.map(\.state)
        let said = zip(services, states).map { "\($0.name): \($1)" }.joined(separator: "; ")
        return "no keyboard service is running (\(said)); " + limit
    }
}
