/// One run of a backend: what ``KeyboardObserving/open(in:sink:app:)`` opened on a run loop's
/// thread, and what the run's owner (a manager, or a test's loop) closes there at the end. The
/// owner holds it for the run and touches it on that loop's thread only, so it need not be
/// `Sendable`: a backend's own state for the run lives here, not in the backend.
@_spi(BackendRun) public protocol BackendConnection: AnyObject, SendableMetatype {
    /// The app whose keyboards count as local changed: it takes effect at the next show. On the
    /// loop's thread. Connections that cannot tell ignore it (the default).
    func appIdentityChanged(_ identity: AppIdentity)
    /// Leaves the loop and lets go of what the run holds, on the loop's thread (or once the loop
    /// has ended). Called once by the owner, also after the connection broke; no call to the sink
    /// follows. A connection that closes itself when it breaks makes a second close do nothing.
    func close()
}

extension BackendConnection {
    /// By default a run cannot judge ownership.
    public func appIdentityChanged(_ identity: AppIdentity) {}
}

extension BackendAvailability {
    /// WAYLAND_DISPLAY's check, shared by the Wayland backends' availability: the reason a
    /// backend for the default display cannot be reached, or nil.
    package static func missingWaylandDisplay(
        displayName: String?, environment: [String: String]
    ) -> BackendAvailability? {
        guard displayName == nil, environment["WAYLAND_DISPLAY"].map({ $0.isEmpty }) ?? true else { return nil }
        return .unreachable(reason: "WAYLAND_DISPLAY is not set")
    }
}

extension KeyboardObserving {
    /// Ends `run`, as its owner does once: closes it, then stops the backend's ``services`` (which
    /// the run started), on the run's loop's thread.
    @_spi(BackendRun) public func end(_ run: any BackendConnection) {
        run.close()
        for service in services { service.stop() }
    }
}

/// A run that holds nothing of its own but what to do when it is closed: for a backend whose
/// state lives elsewhere (one fed by its caller, a test's).
@_spi(BackendRun) public final class CallbackConnection: BackendConnection {
    private var onClose: (() -> Void)?

    /// A run that calls `onClose` when it is closed, once.
    public init(onClose: @escaping () -> Void = {}) { self.onClose = onClose }

    /// Calls what was given, the first time.
    public func close() {
        let call = onClose
        onClose = nil
        call?()
    }
}
