import KeyboardAdapterCore
@_spi(BackendRun) import KeyboardBackendInterface
import Synchronization
import X11Adapter

/// The X11 backend with a tap on what it delivers (how many observations, the last frame), run by
/// a real `KeyboardManager`: latencies are measured at the manager's callback.
final class TappedBackend: KeyboardBackend {
    struct Tapped {
        var observationCount = 0
        var lastFrame: Rect?
        var keyboard: KeyboardIdentity?
    }
    let wrapped: X11Backend
    let tapped = Mutex(Tapped())

    init(_ wrapped: X11Backend) { self.wrapped = wrapped }

    var name: String { wrapped.name }
    var capabilities: BackendCapabilities { wrapped.capabilities }
    func availability() -> BackendAvailability { wrapped.availability() }
    var services: [any KeyboardService] { wrapped.services }
    func open(in context: LoopContext, sink: any ObservationSink, app: AppIdentity) throws -> any BackendConnection {
        try wrapped.open(in: context, sink: Tap(inner: sink, backend: self), app: app)
    }

    struct Tap: ObservationSink {
        let inner: any ObservationSink
        let backend: TappedBackend
        func deliver(_ observation: KeyboardObservation) {
            backend.tapped.withLock { tapped in
                tapped.observationCount += 1
                tapped.lastFrame = observation.frame
                tapped.keyboard = observation.keyboard
            }
            inner.deliver(observation)
        }
        func finish(failure: BackendFailure?) {
            if let failure { fputsError("backend failed: \(failure)\n") }
            inner.finish(failure: failure)
        }
    }
}
