import Synchronization

/// A display-server connection a backend opens at start and closes at stop, on the loop's thread.
package protocol BackendConnection: AnyObject, Sendable {
    /// Leaves the loop and disconnects. Idempotent.
    func close()
}

/// The part of a backend's life that every display-server backend lives the same way: one
/// connection per start, a start that does nothing while a connection is open (also after it
/// broke, until stop), and a stop that closes the connection and then the keyboard services on
/// the loop's thread, whichever thread calls it (a backend's `stop()` is public).
package final class BackendLifecycle<Connection: BackendConnection>: Sendable {
    private let current = Mutex<(connection: Connection, loop: KeyboardRunLoop?)?>(nil)
    private let services: @Sendable () -> [any KeyboardService]

    /// A lifecycle whose stop also stops `services`.
    package init(services: @escaping @Sendable () -> [any KeyboardService]) { self.services = services }

    /// Opens a connection with `open` on the loop's thread of `context`, unless one is open.
    /// What `open` throws is what the backend's start throws.
    package func start(in context: LoopContext, _ open: () throws -> Connection) throws {
        try current.withLock { current in
            guard current == nil else { return }
            current = (try open(), context.runLoop)
        }
    }

    /// Closes the connection, then stops the services, on the loop's thread (waiting for it when
    /// called from another while the loop runs). Idempotent.
    package func stop() {
        let running = current.withLock { current in
            defer { current = nil }
            return current
        }
        guard let (connection, loop) = running else { return }
        let services = services
        let close: @Sendable () -> Void = {
            connection.close()
            for service in services() { service.stop() }
        }
        if let loop, !loop.isCurrent {
            // Runs at once when the loop has ended.
            try? loop.performAndWait(close)
        } else {
            close()
        }
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
