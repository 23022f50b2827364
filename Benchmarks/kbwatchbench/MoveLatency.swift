import Foundation
import KeyboardAdapterCore
import TestSupport

/// Configure request -> event, for the same requests: at kbwatch's stdout and at the bare listener.
struct MoveLatency {
    var kbwatch = Latencies()
    var floor = Latencies()
    var missed = 0

    /// Moves `window` `count` times from a connection of its own (XMoveWindow, flushed), waiting
    /// after each for kbwatch's willChangeFrame line and the listener's ConfigureNotify.
    static func measure(
        display: String, window: UInt, kbwatch: WatchingKbwatch, listener: BareXListener, count: Int
    ) throws -> MoveLatency {
        let driver = try XTestClient.connect(display)
        driver.sync()
        var result = MoveLatency()
        for step in 0..<count {
            let linesBefore = kbwatch.lines.count
            let notifiesBefore = listener.count
            let sent = MonotonicClock.now()
            driver.configure(window, x: step % 2 == 0 ? 100 : 320, y: 600)
            let line = kbwatch.lines.first(from: linesBefore, timeout: 5) { $0.hasPrefix("willChangeFrame") }
            if let line, listener.wait(beyond: notifiesBefore, timeout: 5),
                let notify = listener.notify(notifiesBefore)
            {
                result.kbwatch.append(line.time - sent)
                result.floor.append(notify.time - sent)
            } else {
                result.missed += 1
            }
            // Let the move settle (kbwatch's interval is 50 ms) so that the next one is a new change.
            Thread.sleep(forTimeInterval: 0.07)
        }
        return result
    }
}
