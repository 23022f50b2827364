import Foundation
import KeyboardAdapterCore
import KeyboardBackendInterface
import TestSupport

/// Configure request -> event, for the same requests: at a process's stdout (kbwatch, or xev) and
/// at the bare listener.
struct MoveLatency {
    var process = Latencies()
    var floor = Latencies()
    var missed = 0

    /// Moves `window` `count` times from a connection of its own (XMoveWindow, flushed), waiting
    /// after each for a line of `watcher` that starts with `prefix` and for the listener's
    /// ConfigureNotify.
    static func measure(
        display: String, window: UInt, watcher: WatchedProcess, prefix: String, listener: BareXListener, count: Int
    ) throws -> MoveLatency {
        let driver = try XTestClient.connect(display)
        driver.sync()
        var result = MoveLatency()
        for step in 0..<count {
            let linesBefore = watcher.lines.count
            let notifiesBefore = listener.count
            let sent = MonotonicClock.now()
            driver.configure(window, x: step % 2 == 0 ? 100 : 320, y: 600)
            let line = watcher.lines.first(from: linesBefore, timeout: 5) { $0.hasPrefix(prefix) }
            if let line, listener.wait(beyond: notifiesBefore, timeout: 5),
                let notify = listener.notify(notifiesBefore)
            {
                result.process.append(line.time - sent)
                result.floor.append(notify.time - sent)
            } else {
                result.missed += 1
            }
            // Let the move settle (kbwatch's interval is 50 ms) so that the next one is a new change.
            Thread.sleep(forTimeInterval: 0.07)
        }
        return result
    }

    /// "p50 p99" of both, then the ratio of the p50s and the difference of the p99s.
    func rows(_ label: String) -> [String] {
        [
            column("  \(label)") + millisecondsText(process.p50) + "  " + millisecondsText(process.p99),
            column("  bare Xlib listener, same requests (floor)") + millisecondsText(floor.p50) + "  "
                + millisecondsText(floor.p99),
            column("  ratio p50 / p50, difference p99 - p99") + String(format: "%10.2fx", process.p50 / floor.p50)
                + String(format: "  %+9.3f ms", (process.p99 - floor.p99) * 1000),
        ]
    }
}
