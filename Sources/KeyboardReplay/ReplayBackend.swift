import Glibc
import KeyboardAdapterCore
@_spi(BackendRun) import KeyboardBackendInterface
import KeyboardJSON

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Plays a recording (see ``ObservationCodec``) through the same pipeline as a live backend, on
/// the manager's run loop. It sets the loop's clock to the recording's own, so the events are
/// exactly those of the recorded run at any speed. Needs no display server.
///
/// A malformed line stops the replay there: the lines before it have been delivered and settled,
/// and the failure (kind `.malformedInput`) names the line and the reason.
public final class ReplayBackend: KeyboardBackend {
    /// The most keyboards a recording may show at once (4096: a session has a handful). A line
    /// that would show one more stops the replay with a malformed-input failure naming that line;
    /// what came before it stands. It bounds what a recording can make the tracker hold (each
    /// keyboard tracked costs about 2 KB).
    public static let maximumVisibleKeyboards = 4096

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

    /// Opens the recording and adds a player to the loop, with the recording's clock: the run,
    /// which stops playing when closed. A recording's ownership is as recorded, so `app` is not
    /// used.
    @_spi(BackendRun) public func open(in context: LoopContext, sink: any ObservationSink, app: AppIdentity) throws
        -> any BackendConnection
    {
        let lines = try LineReader(source)
        let clock = ReplayClock(speed: speed)
        context.clock = clock
        let playing = ReplayPlayer(lines: lines, clock: clock, sink: sink, context: context, backendName: name)
        context.add(playing)
        return playing
    }
}

/// A recording's clock on a run loop: the recording's time, running at the chosen speed but never
/// past the last line read, so that no transition settles before a line that comes earlier has
/// been seen (from a slow pipe as from a file). As fast as possible, it moves only as lines come.
final class ReplayClock: ObservationClock {
    private let factor: Double?
    private var wallStart: Double?
    /// How far the recording is known: the time of the next line (or of the last one while the
    /// next is still being read); infinity once it has ended.
    var frontier: Double = 0

    init(speed: ReplayBackend.Speed) {
        if case .factor(let factor) = speed, factor > 0 { self.factor = factor } else { factor = nil }
    }

    /// The recording's time now, as played.
    private var played: Double {
        guard let factor else { return .infinity }
        let start = wallStart ?? MonotonicClock.now()
        if wallStart == nil { wallStart = start }
        return (MonotonicClock.now() - start) * factor
    }

    func now() -> Double { min(played, frontier) }

    func secondsUntil(_ time: Double) -> Double? {
        guard time <= frontier else { return nil }
        guard let factor else { return 0 }
        return (time - played) / factor
    }
}

/// Reads the recording as the loop finds it readable and hands each line to the sink when the
/// clock reaches its time. Lives on the loop's thread.
final class ReplayPlayer: LoopSource, BackendConnection {
    // Not Sendable: created by `start` and then used only on the loop's thread; the backend
    // keeps it loop-bound, so that `stop` ends it there.
    private let lines: LineReader
    private let clock: ReplayClock
    private let sink: any ObservationSink
    private let context: LoopContext
    private let backendName: String
    /// The next observation, read but not yet due.
    private var next: KeyboardObservation?
    private var lineNumber = 0
    private var previousTime: Double?
    /// The keyboards shown as of the last line read, bounded by ``ReplayBackend/maximumVisibleKeyboards``.
    private var shown: Set<String> = []
    private var ended = false

    init(
        lines: LineReader, clock: ReplayClock, sink: any ObservationSink, context: LoopContext, backendName: String
    ) {
        self.lines = lines
        self.clock = clock
        self.sink = sink
        self.context = context
        self.backendName = backendName
        readAhead()
    }

    func prepareToWait() -> (descriptor: Int32, events: Int16) {
        guard !ended, next == nil else { return (-1, 0) }
        return (lines.descriptor, Int16(POLLIN))
    }

    func handle(events: Int16) {
        guard !ended, next == nil, events != 0 else { return }
        lines.fill()
        readAhead()
    }

    var deadline: Double? { ended ? nil : next?.time }

    func deadlineReached() {
        guard let observation = next else { return }
        next = nil
        sink.deliver(observation)
        readAhead()
    }

    /// Stops for good: nothing more is read or delivered. Also what the run's owner calls at its
    /// end (a second close does nothing more).
    func close() {
        ended = true
        context.remove(self)
    }

    /// Parses lines already read until one is an observation, the input runs dry, or it ends.
    private func readAhead() {
        while !ended, next == nil {
            guard let text = lines.next() else {
                if lines.isAtEnd { finish() }
                return
            }
            lineNumber += 1
            if text.allSatisfy(\.isWhitespace) { continue }
            do throws(ObservationCodec.LineError) {
                let observation = try ObservationCodec.decode(
                    text[...], lineNumber: lineNumber, previousTime: previousTime)
                if observation.isShown {
                    guard shown.count < ReplayBackend.maximumVisibleKeyboards || shown.contains(observation.keyboard.id)
                    else {
                        throw ObservationCodec.LineError(
                            line: lineNumber,
                            reason: "more than \(ReplayBackend.maximumVisibleKeyboards) keyboards visible at once")
                    }
                    shown.insert(observation.keyboard.id)
                } else {
                    shown.remove(observation.keyboard.id)
                }
                previousTime = observation.time
                next = observation
                clock.frontier = observation.time
            } catch {
                finish(BackendFailure(backend: backendName, kind: .malformedInput, reason: error.description))
            }
        }
    }

    /// The recording ended or broke: what is left to settle settles, and the sink hears of it.
    private func finish(_ failure: BackendFailure? = nil) {
        let failure =
            failure
            ?? lines.error.map {
                BackendFailure(backend: backendName, kind: .malformedInput, reason: "line \(lineNumber + 1): \($0)")
            }
        close()
        clock.frontier = .infinity
        sink.finish(failure: failure)
    }
}

/// Reads a recording line by line as its descriptor becomes readable, so that a huge file or a
/// pipe is never loaded whole and a pipe that stays open (`--replay -`) never blocks the loop.
/// Used on the loop's thread only.
final class LineReader {
    /// The longest line accepted; a longer one is an error, not unbounded memory.
    static let maximumLineLength = ObservationCodec.maximumLineLength

    private let fd: Int32
    private let ownsFD: Bool
    private var buffer: [UInt8] = []
    /// Where the unread part of `buffer` starts (compacted now and then, not on every line).
    private var start = 0
    private var pending: [String] = []
    private(set) var isAtEnd = false
    /// Set when reading failed part-way (not for malformed lines, which the codec reports).
    private(set) var error: String?

    /// Opens `source`.
    init(_ source: ReplayBackend.Source) throws {
        switch source {
        case .text(let text):
            fd = -1
            ownsFD = false
            pending = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if pending.last == "" { pending.removeLast() }
            pending.reverse()
            isAtEnd = true
        case .file(let path):
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
        if ownsFD { close(fd) }
    }

    /// The descriptor to wait on for more input; -1 for text.
    var descriptor: Int32 { isAtEnd ? -1 : fd }

    /// Reads what the descriptor has now (once; the caller waits for readability first).
    func fill() {
        guard !isAtEnd else { return }
        if start > 0, start * 2 >= buffer.count {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR || errno == EAGAIN { return }
            error = "read error: \(String(cString: strerror(errno)))"
            isAtEnd = true
        } else if count == 0 {
            isAtEnd = true
        } else {
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// The next whole line without its newline (invalid UTF-8 decoded lossily), or nil when none
    /// is complete yet, at the end, or after an error.
    func next() -> String? {
        if let line = pending.popLast() { return line }
        guard error == nil else { return nil }
        let unread = buffer[start...]
        if let newline = unread.firstIndex(of: UInt8(ascii: "\n")) {
            guard newline - start <= Self.maximumLineLength else { return tooLong() }
            defer { start = newline + 1 }
            return String(decoding: buffer[start..<newline], as: UTF8.self)
        }
        // Whether or not a newline follows, a line longer than the limit is refused as soon as
        // that is known.
        guard unread.count <= Self.maximumLineLength else { return tooLong() }
        guard isAtEnd, !unread.isEmpty else { return nil }
        defer { start = buffer.count }
        return String(decoding: unread, as: UTF8.self)
    }

    private func tooLong() -> String? {
        error = "a line longer than \(Self.maximumLineLength) bytes"
        buffer.removeAll()
        start = 0
        isAtEnd = true
        return nil
    }
}
