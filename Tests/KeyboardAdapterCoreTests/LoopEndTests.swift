import Dispatch
import Foundation
@_spi(BackendRun) import KeyboardBackendInterface
import Synchronization
import Testing

@testable import KeyboardAdapterCore

/// The loop's thread is done with the loop's state before the loop says it no longer runs: until
/// then, work handed in from another thread is queued for the loop's thread, never run at once
/// on the caller's beside it (a backend's close run so removed its source from the loop's list
/// while the loop's thread was letting go of that list, which corrupted the heap).
@Suite("Run loop: its end")
struct LoopEndTests {
    /// A source whose release blocks until it is told to go on: the loop's thread is then in its
    /// last steps, letting go of its sources.
    final class SlowToRelease: LoopSource, Sendable {
        let releasing = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        deinit {
            releasing.signal()
            proceed.wait()
        }
    }

    @Test("while the loop's thread lets go of its sources, the loop still runs and work handed in is queued for it")
    func workDuringTheEnd() throws {
        let loop = try KeyboardRunLoop()
        // Touchable from this thread only while the loop does not run.
        let bound = LoopBound(0, loop: loop)
        try loop.start(name: "kbd-ending")
        let releasing: DispatchSemaphore
        let proceed: DispatchSemaphore
        do {
            let source = SlowToRelease()
            releasing = source.releasing
            proceed = source.proceed
            try loop.performAndWait { context in context.add(source) }
        }
        // Asked from the loop itself, so that nothing here waits for the end.
        loop.perform { loop.stop() }
        #expect(releasing.wait(timeout: .now() + 10) == .success)
        #expect(!bound.isAccessible, "the loop said it ended while its thread still let go of its sources")
        let ranOnLoop = Mutex<Bool?>(nil)
        let ran = DispatchSemaphore(value: 0)
        loop.perform {
            ranOnLoop.withLock { $0 = loop.isCurrent }
            ran.signal()
        }
        #expect(ranOnLoop.withLock { $0 } == nil, "work handed in ran at once on the caller's thread")
        proceed.signal()
        #expect(ran.wait(timeout: .now() + 10) == .success)
        #expect(ranOnLoop.withLock { $0 } == true)
        loop.stop()
        #expect(bound.isAccessible && !loop.isCurrent)
    }
}
