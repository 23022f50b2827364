import Foundation
import Glibc
@_spi(BackendRun) import KeyboardBackendInterface
import Synchronization
import Testing

@testable import KeyboardAdapterCore

/// Between deadline passes the loop goes back to `poll()`: a source that is always due (a bus that
/// floods faster than it can be read) never keeps a descriptor source from its turn.
@Suite("Run loop: fairness")
struct LoopFairnessTests {
    /// Due at every turn, like a bus connection that caps its work per turn under a flood.
    final class AlwaysDue: LoopSource, Sendable {
        let calls = Atomic<Int>(0)
        var deadline: Double? { 0 }
        func deadlineReached() { calls.add(1, ordering: .relaxed) }
    }

    /// A pipe's read end; counts the turns on which it was readable, and drains it.
    final class PipeReader: LoopSource, Sendable {
        let descriptor: Int32
        let readable = Atomic<Int>(0)
        init(_ descriptor: Int32) { self.descriptor = descriptor }
        func prepareToWait() -> (descriptor: Int32, events: Int16) { (descriptor, Int16(POLLIN)) }
        func handle(events: Int16) {
            guard events & Int16(POLLIN) != 0 else { return }
            var byte: UInt8 = 0
            _ = read(descriptor, &byte, 1)
            readable.add(1, ordering: .relaxed)
        }
    }

    @Test("a descriptor is read while another source is due at every turn")
    func descriptorDuringFlood() throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        let flood = AlwaysDue()
        let reader = PipeReader(ends[0])
        let loop = try KeyboardRunLoop()
        try loop.start(name: "kbd-fairness")
        defer { loop.stop() }
        try loop.performAndWait { context in
            context.add(flood)
            context.add(reader)
        }
        for round in 1...5 {
            var byte: UInt8 = 1
            #expect(write(ends[1], &byte, 1) == 1)
            let end = MonotonicClock.now() + 2
            while reader.readable.load(ordering: .relaxed) < round && MonotonicClock.now() < end { usleep(1000) }
            #expect(reader.readable.load(ordering: .relaxed) == round, "round \(round)")
        }
        #expect(flood.calls.load(ordering: .relaxed) > 5)
    }
}
