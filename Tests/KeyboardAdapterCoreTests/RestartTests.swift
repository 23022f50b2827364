import Dispatch
import Foundation
@_spi(BackendRun) import KeyboardBackendInterface
import Synchronization
import Testing

@testable import KeyboardAdapterCore

/// A backend that takes its time to stop, and remembers which start each stop ended: what a
/// backend does when its display server connection takes a moment to close.
private final class SlowStoppingBackend: KeyboardBackend {
    let name = "slow-stopping"
    var capabilities: BackendCapabilities { [.reportsFrames] }
    private let sink = Mutex<(any ObservationSink)?>(nil)
    private let starts = Atomic<Int>(0)
    private let calls = Mutex<[String]>([])

    /// `start` and `stop`, in the order they were made.
    var log: [String] { calls.withLock { $0 } }

    func availability() -> BackendAvailability { .available(detail: "a test's") }

    func open(in context: LoopContext, sink: any ObservationSink, app: AppIdentity) throws -> any BackendConnection {
        starts.add(1, ordering: .relaxed)
        calls.withLock { $0.append("start") }
        self.sink.withLock { $0 = sink }
        return CallbackConnection { [self] in
            calls.withLock { $0.append("stop") }
            Thread.sleep(forTimeInterval: 0.05)
            self.sink.withLock { $0 = nil }
        }
    }

    /// A keyboard shown, from the caller's thread.
    func show() {
        let observation = KeyboardObservation(
            time: MonotonicClock.now(), keyboard: Fixture.osk, frame: Fixture.docked, output: Fixture.screen)
        sink.withLock { $0 }?.deliver(observation)
    }

    var isStarted: Bool { sink.withLock { $0 != nil } }
    var startCount: Int { starts.load(ordering: .relaxed) }

    func fail() {
        let current = sink.withLock { sink -> (any ObservationSink)? in
            defer { sink = nil }
            return sink
        }
        current?.finish(failure: BackendFailure(backend: name, kind: .connectionLost, reason: "gone"))
    }
}

/// A manager started again by whoever hears that it stopped keeps the backend it started: the
/// stop of the session before has ended before anyone hears of it.
@Suite("Manager: a restart when the last run ended")
struct RestartTests {
    @Test(
        "the backend fails; the task reading updates() starts the manager again when its sequence ends",
        arguments: [false, true])
    func restartFromStreamEnd(stoppedByApp: Bool) async throws {
        let backend = SlowStoppingBackend()
        let manager = KeyboardManager(backend: backend)
        try manager.start()
        let stream = manager.updates()
        let reader = Task {
            for await _ in stream {}
            try? manager.start()
        }
        if stoppedByApp {
            DispatchQueue.global().async { manager.stop() }
        } else {
            backend.fail()
        }
        await reader.value
        #expect(manager.isRunning)
        #expect(backend.startCount == 2)
        // The first run's stop came before the second start, not after it.
        try await Task.sleep(for: .milliseconds(150))
        #expect(backend.isStarted, "the first run's stop ended the second run's backend")
        manager.stop()
        #expect(!backend.isStarted)
    }

    @Test("a callback on the loop starts the manager again while another thread stops it: stop, then start")
    func restartFromCallbackDuringStop() throws {
        let backend = SlowStoppingBackend()
        let manager = KeyboardManager(backend: backend)
        try manager.start()
        let restarted = Atomic<Bool>(false)
        let token = manager.onEvent(delivery: .immediate) { update in
            guard update.event == .willShow else { return }
            // The other thread's stop has begun once the manager says it is not running.
            let end = MonotonicClock.now() + 5
            while manager.isRunning && MonotonicClock.now() < end { usleep(1000) }
            restarted.store((try? manager.start()) != nil, ordering: .releasing)
        }
        backend.show()
        // Past the willShow's delivery: the callback waits in it for this stop.
        usleep(20000)
        manager.stop()
        let didRestart = restarted.load(ordering: .acquiring)
        #expect(didRestart)
        #expect(manager.isRunning)
        #expect(backend.log == ["start", "stop", "start"])
        #expect(backend.isStarted, "the first run's stop ended the second run's backend")
        token.cancel()
        manager.stop()
        #expect(!backend.isStarted)
    }

    @Test("a stopped manager keeps nothing of its last run: the run, its loop and their descriptors go")
    func stoppedKeepsNoRun() throws {
        let manager = KeyboardManager(backend: SlowStoppingBackend())
        try manager.start()
        weak let run = manager.state.access { $0.run }
        #expect(run != nil)
        manager.stop()
        let end = MonotonicClock.now() + 5
        while run != nil && MonotonicClock.now() < end { usleep(1000) }
        #expect(run == nil, "the stopped manager still holds its last run")
    }

    @Test("a stop and a start from two threads: the backend runs exactly when the manager does")
    func stopAndStartRacing() throws {
        let backend = SlowStoppingBackend()
        let manager = KeyboardManager(backend: backend)
        for _ in 0..<20 {
            try manager.start()
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) { manager.stop() }
            DispatchQueue.global().async(group: group) { try? manager.start() }
            group.wait()
            #expect(manager.isRunning == backend.isStarted)
        }
        manager.stop()
        #expect(!backend.isStarted)
    }
}
