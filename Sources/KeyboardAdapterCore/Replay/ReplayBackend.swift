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
    private let wake = DispatchSemaphore(value: 0)

    private struct Control: Sendable {
        var stopping = false
        var thread: Thread.Done?
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
        let lines = try LineReader(source)
        let done = Thread.Done()
        control.withLock {
            $0.stopping = false
            $0.thread = done
        }
        let thread = Thread { [self] in
            play(lines, into: sink)
            done.signal()
        }
        thread.name = "KeyboardAdapter.replay"
        thread.start()
    }

    /// Stops playing; returns once the playing thread has made its last call to the sink.
    public func stop() {
        let done = control.withLock { control -> Thread.Done? in
            control.stopping = true
            return control.thread
        }
        wake.signal()
        done?.wait()
    }

    private var stopping: Bool { control.withLock { $0.stopping } }

    private func play(_ lines: LineReader, into sink: any ObservationSink) {
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
                guard settleAll(into: sink, wallStart: wallStart) else { return }
                sink.finish(failure: BackendFailure(backend: name, kind: .malformedInput, reason: error.description))
                return
            }
            previous = observation.time
            guard settle(until: observation.time, into: sink, wallStart: wallStart),
                waitUntil(observation.time, wallStart: wallStart)
            else { return }
            sink.deliver(observation)
        }
        if let error = lines.error {
            sink.finish(failure: BackendFailure(backend: name, kind: .malformedInput, reason: error))
            return
        }
        guard settleAll(into: sink, wallStart: wallStart) else { return }
        sink.finish(failure: nil)
    }

    /// Settles every transition due before `time`, each at its own deadline. False when stopped.
    private func settle(until time: Double, into sink: any ObservationSink, wallStart: Double) -> Bool {
        while let deadline = sink.nextDeadline(), deadline <= time {
            guard waitUntil(deadline, wallStart: wallStart) else { return false }
            sink.advance(to: deadline)
        }
        return true
    }

    private func settleAll(into sink: any ObservationSink, wallStart: Double) -> Bool {
        settle(until: .infinity, into: sink, wallStart: wallStart)
    }

    /// Sleeps until the recording's `time` comes round at the chosen speed. False when stopped.
    private func waitUntil(_ time: Double, wallStart: Double) -> Bool {
        guard case .factor(let factor) = speed, factor > 0 else { return !stopping }
        while !stopping {
            let remaining = wallStart + time / factor - MonotonicClock.now()
            if remaining <= 0 { return true }
            _ = wake.wait(timeout: .now() + remaining)
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

/// Reads a recording line by line, so that a huge file or a pipe is never loaded whole.
final class LineReader: @unchecked Sendable {
    private let handle: FileHandle?
    private var buffer = Data()
    private var pending: [String]
    private var atEnd = false
    /// Set when reading failed part-way (not for malformed lines, which the codec reports).
    private(set) var error: String?

    init(_ source: ReplayBackend.Source) throws {
        switch source {
        case .text(let text):
            handle = nil
            pending = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if pending.last == "" { pending.removeLast() }
            atEnd = true
        case .file(let path):
            pending = []
            if path == "-" {
                handle = FileHandle.standardInput
            } else {
                guard let opened = FileHandle(forReadingAtPath: path) else {
                    throw BackendFailure(backend: "replay", kind: .malformedInput, reason: "cannot open \(path)")
                }
                handle = opened
            }
        }
    }

    /// The next line without its newline (invalid UTF-8 decoded lossily), or nil at the end.
    func next() -> String? {
        if !pending.isEmpty { return pending.removeFirst() }
        guard let handle else { return nil }
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                return String(decoding: line, as: UTF8.self)
            }
            if atEnd {
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll() }
                return String(decoding: buffer, as: UTF8.self)
            }
            do {
                let chunk = try handle.read(upToCount: 64 * 1024) ?? Data()
                if chunk.isEmpty { atEnd = true } else { buffer.append(chunk) }
            } catch {
                self.error = "read error: \(error.localizedDescription)"
                atEnd = true
                buffer.removeAll()
            }
        }
    }
}
