import KeyboardAdapterCore

/// Runs a backend on a run loop of its own, as a manager does, for tests that watch a backend
/// through a ``TrackingSink`` without a manager.
public final class BackendLoop: Sendable {
    /// The loop the backend runs on.
    public let loop: KeyboardRunLoop
    private let backend: any KeyboardBackend

    /// Starts `backend` on a new loop, delivering to `sink`; throws what the backend's start throws.
    public init(_ backend: any KeyboardBackend, sink: any ObservationSink) throws {
        self.backend = backend
        let loop = try KeyboardRunLoop()
        self.loop = loop
        try loop.start(name: "kbd-test")
        do {
            try loop.performAndWait { context in try backend.start(in: context, sink: sink) }
        } catch {
            loop.stop()
            throw error
        }
    }

    /// Stops the backend on its loop, then the loop. Idempotent.
    public func stop() {
        try? loop.performAndWait { [backend] in backend.stop() }
        loop.stop()
    }

    deinit { stop() }
}
