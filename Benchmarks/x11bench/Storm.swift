import CX11
import Foundation
import KeyboardAdapterCore
import KeyboardBackendInterface
import TestSupport

/// One storm of configure requests on the keyboard window, and how long the backend (and,
/// when given, the bare listener) took to see the last one.
struct Storm {
    var backendSeconds = Double.nan
    var backendObservations = 0
    var listenerSeconds = Double.nan

    /// Sends `size` XMoveWindow requests on `driver`, flushed every 1000, the last to a known
    /// position (x `finalX`, which must differ from the window's); waits until the backend (and the listener) have seen that position.
    static func run(
        driver: XTestClient, window: Window, size: Int, finalX: Int, backend: TappedBackend, listener: BareXListener?
    )
        -> Storm
    {
        let final = (x: finalX, y: 333)
        let observationsBefore = backend.tapped.withLock { $0.observationCount }
        let start = MonotonicClock.now()
        for index in 0..<size {
            let last = index == size - 1
            let x = last ? final.x : 200 + index % 500
            let y = last ? final.y : 10 + index % 300
            XMoveWindow(driver.handle, window, Int32(x), Int32(y))
            if index % 1000 == 999 { XFlush(driver.handle) }
        }
        XFlush(driver.handle)
        var storm = Storm()
        if Wait.until(
            timeout: 120, interval: 0.001,
            { backend.tapped.withLock { $0.lastFrame.map { $0.x == final.x && $0.y == final.y } ?? false } })
        {
            storm.backendSeconds = MonotonicClock.now() - start
        }
        storm.backendObservations = backend.tapped.withLock { $0.observationCount } - observationsBefore
        if let listener,
            Wait.until(
                timeout: 60, interval: 0.001, { listener.last.map { $0.x == final.x && $0.y == final.y } ?? false })
        {
            storm.listenerSeconds = (listener.last?.time ?? .nan) - start
        }
        return storm
    }

    func backendDescription(_ size: Int) -> String {
        guard backendSeconds.isFinite else { return "NOT all processed within 120 s" }
        return String(
            format: "%.3f s = %.0f ConfigureNotify/s (%d observations)", backendSeconds, Double(size) / backendSeconds,
            backendObservations)
    }

    func listenerDescription(_ size: Int) -> String {
        guard listenerSeconds.isFinite else { return "NOT all received within 60 s" }
        return String(format: "%.3f s = %.0f ConfigureNotify/s", listenerSeconds, Double(size) / listenerSeconds)
    }
}

/// Usage of the loop thread, the listener's thread and the whole process.
struct Idle {
    var loop: ProcessUsage
    var listener: ProcessUsage
    var process: ProcessUsage

    static func sample() -> Idle {
        let pid = getpid()
        return Idle(
            loop: ProcessUsage.sample(pid: pid, thread: "kbd-loop")!,
            listener: ProcessUsage.sample(pid: pid, thread: "bare-xlistener")!,
            process: ProcessUsage.sample(pid: pid)!)
    }

    func since(_ earlier: Idle) -> Idle {
        Idle(
            loop: loop.since(earlier.loop), listener: listener.since(earlier.listener),
            process: process.since(earlier.process))
    }
}
