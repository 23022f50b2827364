import Foundation
import KeyboardAdapter
import Synchronization

/// What the main loop learns: keyboard updates from the manager, signals from the mailbox.
enum Message: Sendable {
    /// A keyboard event from the manager.
    case keyboard(KeyboardUpdate)
    /// An intermediate frame of a keyboard's show, hide or move.
    case progress(KeyboardProgress)
    /// The backend stopped by itself (the display server went away, for instance).
    case backendStopped(BackendFailure?)
    /// The keyboard's answer to a dismissal's hide request.
    case hideAnswered(Result<Void, KeyboardControlError>)
    /// A termination signal arrived.
    case quit(signal: Int32)
}

/// Hands signals to the main thread, which sleeps in poll(): each post appends
/// to a list and writes one byte to a pipe whose read end the main loop polls. The pipe is
/// non-blocking on both ends, so a burst of posts never blocks a sender, and the loop drains
/// every byte and every message at once.
final class Mailbox: Sendable {
    /// The descriptor the main loop polls for reading.
    let readFD: Int32
    private let writeFD: Int32
    private let messages = Mutex<[Message]>([])

    /// Creates the pipe.
    init() throws {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw DemoError("pipe failed: \(String(cString: strerror(errno)))") }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readFD = fds[0]
        writeFD = fds[1]
    }

    deinit {
        close(readFD)
        close(writeFD)
    }

    /// Queues a message and wakes the loop. Callable from any thread.
    func post(_ message: Message) {
        messages.withLock { $0.append(message) }
        var byte: UInt8 = 1
        // A full pipe already holds a wake-up (EAGAIN): nothing is lost.
        _ = write(writeFD, &byte, 1)
    }

    /// Empties the pipe and returns the messages queued so far, oldest first.
    func take() -> [Message] {
        var sink = [UInt8](repeating: 0, count: 256)
        while read(readFD, &sink, sink.count) > 0 {}
        return messages.withLock { queued in
            defer { queued.removeAll() }
            return queued
        }
    }
}

/// A failure of the demo itself, with a message for the user.
struct DemoError: Error, CustomStringConvertible {
    /// The message.
    let description: String
    /// Creates an error.
    init(_ description: String) { self.description = description }
}

extension Mailbox {
    /// Turns the termination signals into `.quit` messages, so the loop ends and tears down as on
    /// a window close. Keep the returned sources for as long as the signals should be handled.
    ///
    /// Defined outside main.swift on purpose: a closure written there is isolated to the main
    /// actor, and libdispatch would run it on its own thread, which the runtime checks and traps.
    func quitOnSignals(_ numbers: [Int32]) -> [any DispatchSourceSignal] {
        let queue = DispatchQueue(label: "kbdemo.signals")
        return numbers.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [self] in post(.quit(signal: number)) }
            source.resume()
            return source
        }
    }
}
