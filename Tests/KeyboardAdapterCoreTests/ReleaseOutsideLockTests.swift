import Dispatch
import Foundation
import KeyboardAdapterCore
@_spi(BackendRun) import KeyboardBackendInterface
@_spi(BackendRun) import KeyboardReplay
import Synchronization
import Testing

/// Nothing is released, waited for or written while a lock of the package is held: what is
/// released may be an app's object whose deinit calls the package again, and a write may block
/// for as long as its reader wants.
@Suite("nothing released or written under a lock")
struct ReleaseOutsideLockTests {
    /// A sink whose release calls `onRelease`, as an app's object released with it may.
    final class ReleaseReportingSink: ObservationSink, Sendable {
        let onRelease: @Sendable () -> Void
        let finished: DispatchSemaphore

        init(finished: DispatchSemaphore, onRelease: @escaping @Sendable () -> Void) {
            self.finished = finished
            self.onRelease = onRelease
        }

        func deliver(_ observation: KeyboardObservation) {}
        func finish(failure: BackendFailure?) { finished.signal() }
        deinit { onRelease() }
    }

    @Test(
        "a replay's run is its owner's: opening the backend again lets go of nothing, and the ended run, closed and let go of by its owner, may call the backend from its release"
    )
    func replayStartedAgain() throws {
        let line = #"{"t":0,"keyboard":{"id":"r:1","name":"osk","kind":"keyboard"},"frame":null,"geometry":"reported"}"#
        let replay = ReplayBackend(source: .text(line), speed: .asFastAsPossible)
        let loop = try KeyboardRunLoop()
        try loop.start(name: "replay-again")
        defer { loop.stop() }
        let finished = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        // The first run's sink, held by its player alone: released when the run's owner lets go
        // of the run, and then it opens the backend once more.
        let first = try loop.performAndWait { context in
            LoopBound(
                Optional(
                    try replay.open(
                        in: context,
                        sink: ReleaseReportingSink(finished: finished) {
                            try? loop.performAndWait { context in
                                let sink = ReleaseReportingSink(finished: DispatchSemaphore(value: 0)) {}
                                try replay.open(in: context, sink: sink, app: AppIdentity()).close()
                            }
                            released.signal()
                        }, app: AppIdentity())), loop: loop)
        }
        #expect(finished.wait(timeout: .now() + 10) == .success, "the recording did not end")
        // The ended run is still held by its owner: the backend keeps none, so opening it again
        // lets go of nothing.
        let second = try loop.performAndWait { context in
            LoopBound(
                try replay.open(in: context, sink: ReleaseReportingSink(finished: finished) {}, app: AppIdentity()),
                loop: loop)
        }
        // A release would have been made in the open, on the loop's thread, before it returned.
        #expect(released.wait(timeout: .now()) == .timedOut, "opening again let go of the first run")
        try loop.performAndWait {
            second.value.close()
            first.value?.close()
            first.value = nil
        }
        #expect(released.wait(timeout: .now() + 10) == .success, "letting go of the first run did not release its sink")
    }

    /// The calling thread's kernel id, from /proc/thread-self (`PID/task/TID`).
    static func currentThreadID() -> Int32 {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { readlink("/proc/thread-self", $0.baseAddress!, $0.count) }
        }
        guard count > 0 else { return 0 }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).split(separator: "/").last ?? "") ?? 0
    }

    /// The system call `thread` (a kernel thread id) is blocked in, from /proc: its number first.
    static func systemCall(of thread: Int32) -> String {
        (try? String(contentsOfFile: "/proc/self/task/\(thread)/syscall", encoding: .utf8)) ?? ""
    }

    @Test("a recording's line is handed over while another thread's write blocks, and every line is written in order")
    func recorderWritesOutsideItsLock() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        // The smallest pipe: a few lines fill it, and the next write blocks until it is read.
        _ = fcntl(ends[1], 1031, 4096)  // F_SETPIPE_SZ
        let recorder = try ObservationRecorder(path: "/proc/self/fd/\(ends[1])")
        close(ends[1])
        let keyboard = KeyboardIdentity(id: "rec:1", name: "osk")
        @Sendable func observation(_ index: Int) -> KeyboardObservation {
            KeyboardObservation(
                time: Double(index) / 1000, keyboard: keyboard, frame: Rect(x: index, y: 500, width: 800, height: 300))
        }
        let lines = 200
        let writer = Atomic<Int32>(0)
        let writerDone = DispatchSemaphore(value: 0)
        Thread {
            writer.store(Self.currentThreadID(), ordering: .releasing)
            for index in 0..<lines { recorder.record(observation(index)) }
            writerDone.signal()
        }.start()
        // The writing thread is blocked in write(2) (system call 1 on x86_64), the pipe full.
        var blocked = false
        for _ in 0..<10_000 where !blocked {
            let thread = writer.load(ordering: .acquiring)
            blocked = thread != 0 && Self.systemCall(of: thread).hasPrefix("1 ")
            if !blocked { usleep(1000) }
        }
        #expect(blocked, "the writing thread never blocked in write(2)")
        let handedOver = DispatchSemaphore(value: 0)
        Thread {
            recorder.record(observation(lines))
            handedOver.signal()
        }.start()
        let returned = handedOver.wait(timeout: .now() + 3) == .success
        #expect(returned, "a record waited for another thread's blocked write: the write is made under the lock")
        // Read everything, which lets the blocked write go on.
        var text: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(20)
        while text.count(where: { $0 == UInt8(ascii: "\n") }) < lines + 1, Date() < deadline {
            var descriptor = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 1000) > 0 else { continue }
            let count = read(ends[0], &buffer, buffer.count)
            if count <= 0 { break }
            text += buffer[0..<count]
        }
        #expect(writerDone.wait(timeout: .now() + 10) == .success)
        if !returned { _ = handedOver.wait(timeout: .now() + 10) }
        let written = String(decoding: text, as: UTF8.self).split(separator: "\n")
        #expect(written.count == lines + 1)
        // Each thread's lines in the order it recorded them, and the other thread's line once.
        let xs = written.compactMap { line -> Int? in
            guard let field = line.range(of: #""x":"#) else { return nil }
            return Int(line[field.upperBound...].prefix { $0.isNumber })
        }
        #expect(xs.filter { $0 != lines } == Array(0..<lines), "\(xs.prefix(10))")
        #expect(xs.filter { $0 == lines }.count == 1)
    }
}
