import Foundation
import Synchronization

/// Plays a recording (see ``ObservationCodec``) through the same pipeline as a live backend. It
/// drives the tracker's clock itself, so the events are exactly those of the recorded run at any
/// speed. Needs no display server.
///
/// A malformed line stops the replay there: the lines before it have been delivered and settled,
/// and the failure (kind `.malformedInput`) names the line and the reason.
public final class ReplayBackend: KeyboardBackend {
    /// How fast to play.
    public enum Speed: Sendable, Hashable {
        /// As recorded, multiplied by the factor (2 is twice as fast).
        case factor(Double)
        /// Without waiting at all.
        case asFastAsPossible
    }

    /// Where the recording comes from.
    public enum Source: Sendable, Hashable {
        /// A file path; `-` reads standard input.
        case file(String)
        /// The recording's text.
        case text(String)
    }

    /// Always `replay`.
    public let name = "replay"
    /// The recording.
    public let source: Source
    /// The playback speed.
    public let speed: Speed

    private let control = Mutex(Control())

    private struct Control: Sendable {
        var stopping = false
        var thread: Thread.Done?
        /// The playing thread, to tell a `stop()` made from a sink callback on it.
        var playing: pthread_t?
        /// Written once by `stop()` to end a blocked read; both ends stay open until the playing
        /// thread is over (a write to a pipe without reader would raise SIGPIPE).
        var wakePipe: (read: Int32, write: Int32)?
    }

    deinit {
        control.withLock { control in
            if let pipe = control.wakePipe {
                close(pipe.read)
                close(pipe.write)
            }
        }
    }

    /// Creates a replay of `source` at `speed`.
    public init(source: Source, speed: Speed = .factor(1)) {
        self.source = source
        self.speed = speed
    }

    /// Frames as recorded; docking, ownership, outputs, layouts and panels as recorded; and the clock.
    public var capabilities: BackendCapabilities {
        [
            .reportsFrames, .reportsFloating, .reportsDocking, .reportsOwnership, .reportsLayout, .reportsOutputs,
            .reportsInputMethodPanels, .drivesClock,
        ]
    }

    /// Available when the recording can be opened.
    public func availability() -> BackendAvailability {
        switch source {
        case .text: return .available(detail: "recording given as text")
        case .file(let path):
            if path == "-" { return .available(detail: "recording on standard input") }
            return FileManager.default.isReadableFile(atPath: path)
                ? .available(detail: "recording \(path)") : .unavailable(reason: "cannot read \(path)")
        }
    }

    /// Starts playing on a thread of its own.
    public func start(sink: any ObservationSink) throws {
        var wakePipe: [Int32] = [-1, -1]
        guard pipe(&wakePipe) == 0 else {
            throw BackendFailure(
                backend: name, kind: .other, reason: "pipe failed: \(String(cString: strerror(errno)))")
        }
        let lines: LineReader
        do {
            lines = try LineReader(source, wakeFD: wakePipe[0])
        } catch {
            close(wakePipe[0])
            close(wakePipe[1])
            throw error
        }
        let wakeRead = wakePipe[0]
        let done = Thread.Done()
        control.withLock {
            $0.stopping = false
            $0.thread = done
            $0.wakePipe = (wakePipe[0], wakePipe[1])
        }
        let thread = Thread { [self] in
            control.withLock { $0.playing = pthread_self() }
            play(lines, into: sink, wakeFD: wakeRead)
            done.signal()
        }
        thread.name = "KeyboardAdapter.replay"
        thread.start()
    }

    /// Stops playing; returns once the playing thread has made its last call to the sink.
    public func stop() {
        let (done, onPlayingThread) = control.withLock { control -> (Thread.Done?, Bool) in
            control.stopping = true
            if let pipe = control.wakePipe {
                var one: UInt8 = 1
                _ = write(pipe.write, &one, 1)
            }
            return (control.thread, control.playing.map { pthread_equal($0, pthread_self()) != 0 } ?? false)
        }
        // From a sink callback on the playing thread, the loop ends when the callback returns
        // (and the pipe is closed with the backend).
        guard !onPlayingThread else { return }
        done?.wait()
        control.withLock { control in
            if let pipe = control.wakePipe {
                close(pipe.read)
                close(pipe.write)
                control.wakePipe = nil
            }
        }
    }

    private var stopping: Bool { control.withLock { $0.stopping } }

    private func play(_ lines: LineReader, into sink: any ObservationSink, wakeFD: Int32) {
        let wallStart = MonotonicClock.now()
        var previous: Double?
        var number = 0
        while let text = lines.next() {
            number += 1
            guard !stopping else { return }
            if text.allSatisfy(\.isWhitespace) { continue }
            let observation: Observation
            do {
                observation = try ObservationCodec.decode(text[...], lineNumber: number, previousTime: previous)
            } catch {
                guard settleAll(into: sink, wallStart: wallStart, wakeFD: wakeFD) else { return }
                sink.finish(failure: BackendFailure(backend: name, kind: .malformedInput, reason: error.description))
                return
            }
            previous = observation.time
            guard settle(until: observation.time, into: sink, wallStart: wallStart, wakeFD: wakeFD),
                waitUntil(observation.time, wallStart: wallStart, wakeFD: wakeFD)
            else { return }
            sink.deliver(observation)
        }
        if let error = lines.error {
            guard settleAll(into: sink, wallStart: wallStart, wakeFD: wakeFD) else { return }
            sink.finish(
                failure: BackendFailure(backend: name, kind: .malformedInput, reason: "line \(number + 1): \(error)"))
            return
        }
        guard !stopping else { return }
        guard settleAll(into: sink, wallStart: wallStart, wakeFD: wakeFD) else { return }
        sink.finish(failure: nil)
    }

    /// Settles every transition due before `time`, each at its own deadline. False when stopped.
    private func settle(until time: Double, into sink: any ObservationSink, wallStart: Double, wakeFD: Int32) -> Bool {
        while let deadline = sink.nextDeadline(), deadline <= time {
            guard waitUntil(deadline, wallStart: wallStart, wakeFD: wakeFD) else { return false }
            sink.advance(to: deadline)
        }
        return true
    }

    private func settleAll(into sink: any ObservationSink, wallStart: Double, wakeFD: Int32) -> Bool {
        settle(until: .infinity, into: sink, wallStart: wallStart, wakeFD: wakeFD)
    }

    /// Sleeps until the recording's `time` comes round at the chosen speed. False when stopped.
    private func waitUntil(_ time: Double, wallStart: Double, wakeFD: Int32) -> Bool {
        guard case .factor(let factor) = speed, factor > 0 else { return !stopping }
        while !stopping {
            let remaining = wallStart + time / factor - MonotonicClock.now()
            if remaining <= 0 { return true }
            // Sleeps on the wake pipe, so that stop() ends the wait at once.
            var wake = pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)
            _ = poll(&wake, 1, Int32(min(remaining * 1000, 60_000).rounded(.up)))
        }
        return false
    }
}

extension Thread {
    /// A one-shot "finished" flag a thread raises and others wait for.
    final class Done: Sendable {
        private let semaphore = DispatchSemaphore(value: 0)
        private let raised = Mutex(false)

        func signal() {
            raised.withLock { $0 = true }
            semaphore.signal()
        }

        func wait() {
            if raised.withLock({ $0 }) { return }
            semaphore.wait()
            semaphore.signal()
        }
    }
}

/// Reads a recording line by line, so that a huge file or a pipe is never loaded whole. Blocks
/// in `poll()` on the recording and a wake pipe, so that a replay from a pipe that stays open
/// (`--replay -`) still stops at once. Used only by the playing thread once created, which is
/// what makes handing it to that thread safe.
final class LineReader: @unchecked Sendable {
    /// The longest line accepted; a longer one is an error, not unbounded memory.
    static let maximumLineLength = 1 << 20

    private let fd: Int32?
    private let ownsFD: Bool
    private let wakeFD: Int32
    private var buffer: [UInt8] = []
    private var pending: [String]
    private var atEnd = false
    /// Set when reading failed part-way (not for malformed lines, which the codec reports).
    private(set) var error: String?

    /// Opens `source`; `wakeFD` (owned by the caller, open as long as this reader) becomes
    /// readable when the replay is stopped.
    init(_ source: ReplayBackend.Source, wakeFD: Int32) throws {
        self.wakeFD = wakeFD
        switch source {
        case .text(let text):
            fd = nil
            ownsFD = false
            pending = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if pending.last == "" { pending.removeLast() }
            atEnd = true
        case .file(let path):
            pending = []
            if path == "-" {
                fd = 0
                ownsFD = false
            } else {
                let opened = open(path, O_RDONLY | O_CLOEXEC)
                guard opened >= 0 else {
                    throw BackendFailure(
                        backend: "replay", kind: .malformedInput,
                        reason: "cannot open \(path): \(String(cString: strerror(errno)))")
                }
                fd = opened
                ownsFD = true
            }
        }
    }

    deinit {
        if ownsFD, let fd { close(fd) }
    }

    /// The next line without its newline (invalid UTF-8 decoded lossily), or nil at the end, on
    /// an error, or when stopped.
    func next() -> String? {
        if !pending.isEmpty { return pending.removeFirst() }
        guard let fd else { return nil }
        while true {
            // The limit holds whether a long line ends in a newline or at the end of the file.
            let newline = buffer.firstIndex(of: UInt8(ascii: "\n"))
            if (newline ?? buffer.count) > Self.maximumLineLength {
                error = "a line longer than \(Self.maximumLineLength) bytes"
                buffer.removeAll()
                atEnd = true
                return nil
            }
            if let newline {
                defer { buffer.removeSubrange(0...newline) }
                return String(decoding: buffer[0..<newline], as: UTF8.self)
            }
            if atEnd {
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll() }
                return String(decoding: buffer, as: UTF8.self)
            }
            var fds = [
                pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
            ]
            if poll(&fds, 2, -1) < 0 {
                if errno == EINTR { continue }
                error = "poll failed: \(String(cString: strerror(errno)))"
                return nil
            }
            // Stopped: nothing more is read.
            if fds[1].revents != 0 { return nil }
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                error = "read error: \(String(cString: strerror(errno)))"
                buffer.removeAll()
                atEnd = true
            } else if count == 0 {
                atEnd = true
            } else {
                buffer.append(contentsOf: chunk[0..<count])
            }
        }
    }
}
