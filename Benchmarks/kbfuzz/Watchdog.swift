import Foundation
import Synchronization

/// Says which input was running when the process dies or stalls. A crash kills the harness, so
/// the message for the current input is kept ready in a fixed buffer that a signal handler can
/// write without allocating; a watchdog thread reports an input that runs longer than the limit.
enum Watchdog {
    nonisolated(unsafe) private static let message = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    nonisolated(unsafe) private static var messageLength = 0
    private static let started = Atomic<UInt64>(0)

    /// Installs the crash handlers and starts the watchdog thread.
    static func start(hangLimit: Double) {
        for number in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE] {
            signal(number) { number in
                _ = write(2, Watchdog.message, Watchdog.messageLength)
                signal(number, SIG_DFL)
                raise(number)
            }
        }
        Thread.detachNewThread {
            while true {
                Thread.sleep(forTimeInterval: 0.5)
                let begin = started.load(ordering: .acquiring)
                guard begin != 0 else { continue }
                if Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e9 > hangLimit {
                    _ = write(2, message, messageLength)
                    FileHandle.standardError.write(Data("kbfuzz: hang: over \(hangLimit) s on that input\n".utf8))
                    exit(3)
                }
            }
        }
    }

    /// Marks the start of an input.
    static func begin(seed: UInt64, input: Int, kind: String) {
        let text = Array("kbfuzz: died on --seed \(seed) --input \(input) (\(kind))\n".utf8.prefix(255))
        text.withUnsafeBufferPointer { message.update(from: $0.baseAddress!, count: $0.count) }
        messageLength = text.count
        started.store(DispatchTime.now().uptimeNanoseconds, ordering: .releasing)
    }

    /// Marks the end of an input.
    static func end() { started.store(0, ordering: .releasing) }
}
