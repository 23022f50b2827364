import Synchronization

/// A display-server connection a backend opens at start and closes at stop, on the loop's thread.
/// It belongs to that thread: the lifecycle keeps it loop-bound, so it need not be `Sendable`.
package protocol BackendConnection: AnyObject, SendableMetatype {
    /// Leaves the loop and disconnects. Idempotent.
    func close()
}

/// The part of a backend's life that every display-server backend lives the same way: one
/// connection per start, a start that does nothing while a connection is open (also after it
/// broke, until stop), and a stop that closes the connection and then the keyboard services on
/// the loop's thread, whichever thread calls it (a backend's `stop()` is public).
///
/// No lock is held while a connection opens or closes: what a backend does then (deliver the
/// keyboards already visible, start its services) may reach code that starts or stops again.
package final class BackendLifecycle<Connection: BackendConnection>: Sendable {
    private enum Phase: Sendable {
        case closed
        /// A start is opening a connection on `loop`; `stopAsked` when a stop came from that same
        /// thread meanwhile (the connection is then closed as soon as it is open).
        case opening(loop: KeyboardRunLoop, stopAsked: Bool)
        case open(LoopBound<Connection>, loop: KeyboardRunLoop)
    }
    private let phase = Mutex<Phase>(.closed)
    private let app = Mutex<AppIdentity>(.currentProcess)

    /// What a stop does once it has looked at the phase.
    private enum StopStep: Sendable {
        case nothing
        case waitForOpen(KeyboardRunLoop)
        case close(LoopBound<Connection>, loop: KeyboardRunLoop)
    }
    private let services: @Sendable () -> [any KeyboardService]

    /// A lifecycle whose stop also stops `services`.
    package init(services: @escaping @Sendable () -> [any KeyboardService]) { self.services = services }

    /// Opens a connection with `open` on the loop's thread of `context`, unless one is open or
    /// opening. What `open` throws is what the backend's start throws.
    package func start(in context: LoopContext, _ open: () throws -> Connection) throws {
        guard let loop = context.runLoop else { return }
        let opens = phase.withLock { phase in
            guard case .closed = phase else { return false }
            phase = .opening(loop: loop, stopAsked: false)
            return true
        }
        guard opens else { return }
        let connection: Connection
        do {
            connection = try open()
        } catch {
            phase.withLock { $0 = .closed }
            throw error
        }
        let bound = LoopBound(connection, loop: loop)
        let stopAsked = phase.withLock { phase in
            if case .opening(_, stopAsked: true) = phase {
                phase = .closed
                return true
            }
            phase = .open(bound, loop: loop)
            return false
        }
        if stopAsked { close(bound) }
    }

    /// Closes the connection, then stops the services, on the loop's thread (waiting for it when
    /// called from another while the loop runs; a connection still opening is closed once open).
    /// Idempotent.
    package func stop() {
        let step = phase.withLock { phase -> StopStep in
            switch phase {
            case .closed:
                return .nothing
            case .opening(let loop, _):
                guard loop.isCurrent else { return .waitForOpen(loop) }
                phase = .opening(loop: loop, stopAsked: true)
                return .nothing
            case .open(let connection, let loop):
                phase = .closed
                return .close(connection, loop: loop)
            }
        }
        switch step {
        case .nothing:
            return
        case .waitForOpen(let loop):
            // The loop's next turn comes after the start that is opening: the connection is open
            // by then (or the start failed), and this stop closes it there.
            try? loop.performAndWait { self.stop() }
        case .close(let connection, let loop):
            // At once on the loop's thread or when the loop no longer runs.
            try? loop.performAndWait { self.close(connection) }
        }
    }

    /// The app whose keyboards count as local, as last set (the current process until then): kept
    /// here, once for every backend, and read by the open connection at each show. Any thread.
    package var appIdentity: AppIdentity { app.withLock { $0 } }

    /// Sets ``appIdentity``; it takes effect at the next show. Any thread.
    package func setAppIdentity(_ identity: AppIdentity) { app.withLock { $0 = identity } }

    /// ``appIdentity`` as a function for a connection, which keeps the lifecycle only weakly (the
    /// lifecycle keeps the connection).
    package var appIdentityReader: @Sendable () -> AppIdentity {
        { [weak self] in self?.appIdentity ?? AppIdentity() }
    }

    private func close(_ connection: LoopBound<Connection>) {
        connection.value.close()
        for service in services() { service.stop() }
    }

    /// WAYLAND_DISPLAY's check, shared by the Wayland backends' availability: the reason a
    /// backend for the default display cannot be reached, or nil.
    package static func missingWaylandDisplay(
        displayName: String?, environment: [String: String]
    ) -> BackendAvailability? {
        guard displayName == nil, environment["WAYLAND_DISPLAY"].map({ $0.isEmpty }) ?? true else { return nil }
        return .unreachable(reason: "WAYLAND_DISPLAY is not set")
    }
}
