import Glibc
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Records every observation a manager's backend delivers, in the replay format, one flushed line
/// per observation: it taps the manager's observation sink (``KeyboardManager/Configuration/recorder``)
/// rather than wrapping the backend, so whatever a backend offers stays reachable as it is.
public final class ObservationRecorder: Sendable {
    private let writer: LineWriter

    /// Records into the file at `path` (created or truncated); `-` writes standard output.
    public init(path: String) throws {
        writer = try LineWriter(path: path)
    }

    /// Writes one observation; on the manager's loop thread, before the observation is processed.
    func record(_ observation: KeyboardObservation) { writer.write(observation) }
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
