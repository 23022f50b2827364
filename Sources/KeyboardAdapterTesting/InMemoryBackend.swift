import KeyboardAdapterCore
@_spi(BackendRun) import KeyboardBackendInterface
import Synchronization

/// A backend whose observations the caller hands in, for testing code that uses a
/// ``KeyboardManager`` (like swift-log's in-memory handler). It runs the manager's live path:
/// the manager's run loop and its settle deadlines, on the monotonic clock. Observations handed
/// in from any thread are processed on the loop's thread, in order.
public final class InMemoryBackend: KeyboardBackend {
    /// The name given at creation (default `memory`).
    public let name: String
    private let sink = Mutex<(any ObservationSink)?>(nil)

    /// Creates a backend named `name`.
    public init(name: String = "memory") { self.name = name }

    /// It can tell everything an observation carries, and hides keyboards on request.
    public var capabilities: BackendCapabilities {
        [
            .reportsFrames, .reportsFloating, .reportsDocking, .reportsOwnership, .reportsLayout, .reportsOutputs,
            .reportsInputMethodPanels, .hidesKeyboards,
        ]
    }

    private let hidden = Mutex<[KeyboardIdentity]>([])

    /// The keyboards asked to hide, in order.
    public var hideRequests: [KeyboardIdentity] { hidden.withLock { $0 } }

    /// Records the request and reports the keyboard hidden, as an obliging keyboard would.
    public func requestHide(of keyboard: KeyboardIdentity) throws(KeyboardControlError) {
        hidden.withLock { $0.append(keyboard) }
        observe(keyboard, frame: nil)
    }

    /// Always available.
    public func availability() -> BackendAvailability { .available(detail: "observations handed in by the caller") }

    /// Remembers the sink until the run is closed.
    @_spi(BackendRun) public func open(in context: LoopContext, sink: any ObservationSink, app: AppIdentity) throws
        -> any BackendConnection
    {
        self.sink.withLock { $0 = sink }
        return Run(backend: self)
    }

    /// A run: closing it forgets the sink.
    private final class Run: BackendConnection {
        let backend: InMemoryBackend

        init(backend: InMemoryBackend) { self.backend = backend }

        func close() { backend.sink.withLock { $0 = nil } }
    }

    /// True while a run is open.
    public var isStarted: Bool { sink.withLock { $0 != nil } }

    /// Hands an observation to the manager; a nil `time` stamps it with `MonotonicClock.now()`.
    public func observe(
        _ keyboard: KeyboardIdentity, frame: Rect?, isDocked: Bool? = nil, output: Output? = nil,
        isLocal: Bool? = nil, layout: InputLayout? = nil, time: Double? = nil
    ) {
        let observation = KeyboardObservation(
            time: time ?? MonotonicClock.now(), keyboard: keyboard, frame: frame,
            isDocked: isDocked, output: output, geometry: .reported, isLocal: isLocal,
            layout: layout)
        sink.withLock { $0 }?.deliver(observation)
    }

    /// Hands a ready-made observation to the manager.
    public func observe(_ observation: KeyboardObservation) { sink.withLock { $0 }?.deliver(observation) }

    /// Ends as a real backend ends when its display server goes away.
    public func fail(_ reason: String) {
        let current = sink.withLock { sink -> (any ObservationSink)? in
            defer { sink = nil }
            return sink
        }
        current?.finish(failure: BackendFailure(backend: name, kind: .connectionLost, reason: reason))
    }
}
