import Glibc
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Wraps a live backend and records every observation it delivers, in the replay format, one
/// flushed line per observation, while passing everything on unchanged.
public final class RecordingBackend: KeyboardBackend {
    /// The backend being recorded.
    public let wrapped: any KeyboardBackend
    private let writer: LineWriter

    /// Records `backend` into the file at `path` (created or truncated); `-` writes standard output.
    public init(recording backend: any KeyboardBackend, to path: String) throws {
        wrapped = backend
        writer = try LineWriter(path: path)
    }

    /// The wrapped backend's name: a recording is transparent.
    public var name: String { wrapped.name }
    /// The wrapped backend's capabilities.
    public var capabilities: BackendCapabilities { wrapped.capabilities }
    /// The wrapped backend's availability.
    public func availability() -> BackendAvailability { wrapped.availability() }
    /// The wrapped backend's diagnosis.
    public func diagnose() -> [String] { wrapped.diagnose() }

    /// Starts the wrapped backend with a sink that writes each observation before passing it on.
    public func start(in context: LoopContext, sink: any ObservationSink) throws {
        try wrapped.start(in: context, sink: RecordingSink(inner: sink, writer: writer))
    }

    /// Stops the wrapped backend.
    public func stop() { wrapped.stop() }
    /// Passed to the wrapped backend.
    public func setAppIdentity(_ identity: AppIdentity) { wrapped.setAppIdentity(identity) }
    /// Passed to the wrapped backend.
    public func requestHide(of keyboard: KeyboardIdentity) throws(KeyboardControlError) {
        try wrapped.requestHide(of: keyboard)
    }
    /// The wrapped backend's keyboard services.
    public var services: [any KeyboardService] { wrapped.services }
    /// Passed to the wrapped backend.
    public func requestShow(completion: @escaping @Sendable (Result<Void, KeyboardControlError>) -> Void) {
        wrapped.requestShow(completion: completion)
    }
    /// Passed to the wrapped backend.
    public func requestHide(
        of keyboards: [KeyboardIdentity], completion: @escaping @Sendable (Result<Void, KeyboardControlError>) -> Void
    ) {
        wrapped.requestHide(of: keyboards, completion: completion)
    }
}

private struct RecordingSink: ObservationSink {
    let inner: any ObservationSink
    let writer: LineWriter

    func deliver(_ observation: KeyboardObservation) {
        writer.write(observation)
        inner.deliver(observation)
    }
    func finish(failure: BackendFailure?) { inner.finish(failure: failure) }
}

/// Writes recording lines with one `write(2)` each, so a reader (or a crash) never sees half a line.
private final class LineWriter: Sendable {
    private let fd: Int32
    private let origin = Mutex<Double?>(nil)

    init(path: String) throws {
        if path == "-" {
            fd = 1
        } else {
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw BackendFailure(
                    backend: "recorder", kind: .other,
                    reason: "cannot write \(path): \(String(cString: strerror(errno)))")
            }
        }
    }

    func write(_ observation: KeyboardObservation) {
        origin.withLock { origin in
            if origin == nil { origin = observation.time }
            let bytes = Array((ObservationCodec.encode(observation, relativeTo: origin ?? 0) + "\n").utf8)
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes {
                    Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset)
                }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    deinit { if fd > 2 { close(fd) } }
}
