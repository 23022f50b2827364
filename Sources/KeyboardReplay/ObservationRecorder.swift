import Glibc
import KeyboardAdapterCore
import KeyboardJSON
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Records every observation a manager's backend delivers, in the replay format, one flushed line
/// per observation: it taps the manager's observation sink (``/KeyboardAdapterCore/KeyboardManager/Configuration/recorder``)
/// rather than wrapping the backend, so whatever a backend offers stays reachable as it is.
///
/// A recording that cannot be written is never lost in silence: the first write that fails (a
/// full disk, a closed descriptor), or the file being removed while it is written, is reported
/// once to `onFailure` with the path and the reason, and nothing more is written. A line cut
/// short by a full disk is taken back, so what was recorded still replays.
public final class ObservationRecorder: ObservationRecording {
    private let writer: LineWriter

    /// Records into the file at `path` (created or truncated); `-` writes standard output.
    /// `onFailure` is called once, on the manager's loop thread, when the recording cannot go on.
    public init(path: String, onFailure: @escaping @Sendable (RecordingFailure) -> Void = { _ in }) throws {
        writer = try LineWriter(path: path, onFailure: onFailure)
    }

    /// Writes one observation; on the manager's loop thread, before the observation is processed.
    /// Writes `observation` as the recording's next line.
    public func record(_ observation: KeyboardObservation) { writer.write(observation) }
}

/// Writes recording lines with one `write(2)` each, so a reader (or a crash) never sees half a line.
///
/// No file is touched under the lock: a record hands its line over in order, and the one thread
/// that is writing (the first to find no one writing) writes what was handed over until none is
/// left. A record never waits for another thread's write (a pipe whose reader is slow blocks only
/// the writing thread); what waits is bounded by ``maximumWaitingBytes``.
private final class LineWriter: Sendable {
    private struct State: Sendable {
        var origin: Double?
        var failed = false
        /// Lines handed over and not yet written, in order.
        var waiting: [[UInt8]] = []
        var waitingBytes = 0
        /// Whether a thread is writing (and will write what waits).
        var writing = false
    }

    /// The most that may wait for a blocked write: more means the reader fell too far behind.
    static let maximumWaitingBytes = 1 << 20

    private let fd: Int32
    private let path: String
    /// Whether the file is a regular one, whose removal while it is written loses the recording.
    private let isRegularFile: Bool
    private let state = Mutex(State())
    private let onFailure: @Sendable (RecordingFailure) -> Void

    init(path: String, onFailure: @escaping @Sendable (RecordingFailure) -> Void) throws {
        self.path = path == "-" ? "standard output" : path
        self.onFailure = onFailure
        if path == "-" {
            fd = 1
        } else {
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0o644)
            guard fd >= 0 else {
                throw BackendFailure(
                    backend: "recorder", kind: .other,
                    reason: "cannot write \(path): \(String(cString: strerror(errno)))")
            }
        }
        var info = stat()
        isRegularFile = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// What a record does once it handed its line over.
    private enum Step {
        case nothing
        case write
        case fail(RecordingFailure)
    }

    func write(_ observation: KeyboardObservation) {
        let step = state.withLock { state -> Step in
            guard !state.failed else { return .nothing }
            if state.origin == nil { state.origin = observation.time }
            let bytes = Array((ObservationCodec.encode(observation, relativeTo: state.origin ?? 0) + "\n").utf8)
            guard state.waitingBytes + bytes.count <= Self.maximumWaitingBytes else {
                state.failed = true
                state.waiting.removeAll()
                state.waitingBytes = 0
                return .fail(
                    RecordingFailure(
                        path: path, reason: "its reader fell more than 1 MiB behind; nothing more is written"))
            }
            state.waiting.append(bytes)
            state.waitingBytes += bytes.count
            guard !state.writing else { return .nothing }
            state.writing = true
            return .write
        }
        switch step {
        case .nothing: return
        // Outside the lock: the callback is the app's.
        case .fail(let failure): onFailure(failure)
        case .write: writeWaiting()
        }
    }

    /// Writes what waits until nothing does, outside the lock; on the one thread that writes.
    private func writeWaiting() {
        while true {
            let lines = state.withLock { state -> [[UInt8]] in
                if state.waiting.isEmpty || state.failed { state.writing = false }
                defer {
                    state.waiting = []
                    state.waitingBytes = 0
                }
                return state.failed ? [] : state.waiting
            }
            if lines.isEmpty { return }
            for line in lines {
                guard let failure = writeLine(line) else { continue }
                state.withLock { $0.failed = true }
                onFailure(failure)
                break
            }
        }
    }

    /// Writes one line; why it failed, the line taken back, when it could not.
    private func writeLine(_ bytes: [UInt8]) -> RecordingFailure? {
        // Where the line starts, so that a line cut short by a full disk can be taken back:
        // what was recorded stays a recording that replays.
        let lineStart = isRegularFile ? lseek(fd, 0, SEEK_CUR) : -1
        var failure = writeAll(bytes)
        if failure != nil, lineStart >= 0 { _ = ftruncate(fd, lineStart) }
        // A removed file takes every line with it once closed, although each write succeeds.
        if failure == nil, isRegularFile {
            var info = stat()
            if fstat(fd, &info) == 0, info.st_nlink == 0 {
                failure = RecordingFailure(path: path, reason: "the file was removed while recording")
            }
        }
        return failure
    }

    /// Writes `bytes` whole; why not when it cannot.
    private func writeAll(_ bytes: [UInt8]) -> RecordingFailure? {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            if written < 0 {
                return RecordingFailure(
                    path: path, reason: String(cString: strerror(errno)), isClosedPipe: errno == EPIPE)
            }
            if written == 0 { return RecordingFailure(path: path, reason: "nothing could be written") }
            offset += written
        }
        return nil
    }

    deinit { if fd > 2 { close(fd) } }
}

/// Why a recording stopped being written.
public struct RecordingFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The recording's path, or `standard output`.
    public var path: String
    /// What went wrong, such as `No space left on device`.
    public var reason: String
    /// True when the recording went to a pipe whose reader went away: the end a reader chose,
    /// not a loss.
    public var isClosedPipe: Bool

    /// Creates a failure.
    public init(path: String, reason: String, isClosedPipe: Bool = false) {
        self.path = path
        self.reason = reason
        self.isClosedPipe = isClosedPipe
    }

    /// `cannot write the recording PATH: REASON`.
    public var description: String { "cannot write the recording \(path): \(reason)" }
}
