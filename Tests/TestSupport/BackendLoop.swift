import KeyboardAdapterCore
@_spi(BackendRun) import KeyboardBackendInterface

/// Runs a backend on a run loop of its own, as a manager does, for tests that watch a backend
/// through a ``TrackingSink`` without a manager.
public final class BackendLoop: Sendable {
    private let host: LoopHost<any KeyboardBackend>

    /// The loop the backend runs on.
    public var loop: KeyboardRunLoop { host.loop }

    /// Starts `backend` on a new loop, delivering to `sink`; throws what the backend's start throws.
    public init(_ backend: any KeyboardBackend, sink: any ObservationSink) throws {
        host = try LoopHost(
            name: "kbd-test",
            make: { context in
                try backend.start(in: context, sink: sink)
                return backend
            }, close: { $0.stop() })
    }

    /// Stops the backend on its loop, then the loop. Idempotent.
    public func stop() { host.stop() }
}
