import KeyboardAdapterCore
@_spi(BackendRun) import KeyboardBackendInterface

/// Runs a backend on a run loop of its own, as a manager does, for tests that watch a backend
/// through a ``TrackingSink`` without a manager: it opens one run, forwards the app's identity to
/// it, and ends it.
public final class BackendLoop: Sendable {
    private let backend: any KeyboardBackend
    private let host: LoopHost<any BackendConnection>

    /// The loop the backend runs on.
    public var loop: KeyboardRunLoop { host.loop }

    /// Opens a run of `backend` on a new loop, delivering to `sink`, with `app` as the app whose
    /// keyboards count as local; throws what the backend's open throws.
    public init(_ backend: any KeyboardBackend, sink: any ObservationSink, app: AppIdentity = .currentProcess) throws {
        self.backend = backend
        host = try LoopHost(
            name: "kbd-test",
            make: { context in try backend.open(in: context, sink: sink, app: app) },
            close: { backend.end($0) })
    }

    /// Tells the run that the app's identity changed, on its loop.
    public func setAppIdentity(_ identity: AppIdentity) {
        try? host.withValue { $0.appIdentityChanged(identity) }
    }

    /// Ends the run on its loop, then the loop. Idempotent.
    public func stop() { host.stop() }
}
