import Foundation
import KeyboardAdapterTesting
import Testing

@testable import KeyboardAdapterCore
@testable import KeyboardReplay

/// A manager on an in-memory backend, its closures subscribed for a private serial queue.
struct LiveRig {
    let backend = InMemoryBackend()
    let queue = DispatchQueue(label: "test.manager")
    let manager: KeyboardManager
    /// Where the rig's closures run: the private queue.
    var delivery: KeyboardDelivery { .queue(queue) }

    init(settle: Double = 0.01) throws {
        manager = KeyboardManager(backend: backend, configuration: .init(settleInterval: settle))
        try manager.start()
    }

    /// Shows the fixture keyboard and waits until didShow has been handed out.
    func showAndSettle(_ frame: Rect = Fixture.docked) {
        backend.observe(Fixture.osk, frame: frame, output: Fixture.screen)
        drain()
    }

    /// Waits until every transition has settled (the manager's own timers fired), then for the
    /// callback queue to run what was queued. Gives up after 10 s, which the expectations then show.
    func drain() {
        let end = Date().addingTimeInterval(10)
        while !manager.isSettled && Date() < end { Thread.sleep(forTimeInterval: 0.002) }
        queue.sync {}
    }
}

@Suite("Manager: subscriptions and lifecycle")
struct ManagerTests {
    @Test("closures per event and for all events, called on the given queue")
    func closuresOnQueue() throws {
        let rig = try LiveRig()
        let key = DispatchSpecificKey<Int>()
        rig.queue.setSpecific(key: key, value: 7)
        let shows = UpdateBox()
        let all = UpdateBox()
        let onQueue = FailureBox()
        let a = rig.manager.on(.didShow, delivery: rig.delivery) { update in
            if DispatchQueue.getSpecific(key: key) != 7 {
                onQueue.set(BackendFailure(backend: "t", reason: "wrong queue"))
            }
            shows.append(update)
        }
        let b = rig.manager.onEvent(delivery: rig.delivery) { all.append($0) }
        rig.showAndSettle()
        #expect(shows.all.map(\.event) == [.didShow])
        #expect(all.all.map(\.event) == [.willShow, .didShow])
        #expect(onQueue.get() == nil)
        _ = (a, b)
    }

    @Test("by default closures run on the main actor")
    @MainActor
    func mainActorDelivery() async throws {
        let backend = InMemoryBackend()
        let manager = KeyboardManager(backend: backend, configuration: .init(settleInterval: 0))
        try manager.start()
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
        let token = manager.on(.willShow) { _ in continuation.yield(MainQueue.isCurrent) }
        backend.observe(Fixture.osk, frame: Fixture.docked)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == true)
        _ = token
    }

    @Test("the delegate is called on the main actor, with every event, and held weakly")
    @MainActor
    func delegate() async throws {
        final class Recorder: KeyboardManagerDelegate {
            var events: [KeyboardEvent] = []
            var onMain = true
            let done: AsyncStream<Void>.Continuation
            init(done: AsyncStream<Void>.Continuation) { self.done = done }
            func keyboardManager(_ manager: KeyboardManager, willShow update: KeyboardUpdate) { record(update) }
            func keyboardManager(_ manager: KeyboardManager, didShow update: KeyboardUpdate) {
                record(update)
                done.yield()
            }
            func record(_ update: KeyboardUpdate) {
                onMain = onMain && MainQueue.isCurrent
                events.append(update.event)
            }
        }
        let backend = InMemoryBackend()
        let manager = KeyboardManager(backend: backend, configuration: .init(settleInterval: 0.01))
        try manager.start()
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        var recorder: Recorder? = Recorder(done: continuation)
        weak let weakRecorder = recorder
        manager.delegate = recorder
        backend.observe(Fixture.osk, frame: Fixture.docked)
        var iterator = stream.makeAsyncIterator()
        await iterator.next()
        #expect(recorder?.events == [.willShow, .didShow])
        #expect(recorder?.onMain == true)
        recorder = nil
        #expect(weakRecorder == nil)
        #expect(manager.delegate == nil)
        backend.observe(Fixture.osk, frame: nil)
        try await Task.sleep(for: .milliseconds(50))
    }

    @Test("releasing a token unsubscribes; cancelling twice is harmless")
    func tokenDeinit() throws {
        let rig = try LiveRig()
        let seen = UpdateBox()
        var token: KeyboardSubscription? = rig.manager.onEvent(delivery: rig.delivery) { seen.append($0) }
        #expect(rig.manager.subscriberCount == 1)
        token = nil
        #expect(rig.manager.subscriberCount == 0)
        let other = rig.manager.onEvent(delivery: rig.delivery) { seen.append($0) }
        other.cancel()
        other.cancel()
        #expect(!other.isActive)
        rig.showAndSettle()
        #expect(seen.all.isEmpty)
        _ = token
    }

    @Test("a closure that cancels its own token inside the callback is called once")
    func unsubscribeInsideCallback() throws {
        let rig = try LiveRig()
        let seen = UpdateBox()
        let holder = TokenHolder()
        holder.token = rig.manager.onEvent(delivery: rig.delivery) { update in
            seen.append(update)
            holder.token?.cancel()
        }
        rig.showAndSettle()
        #expect(seen.all.map(\.event) == [.willShow])
    }

    @Test("1000 subscribers each get every event exactly once")
    func thousandSubscribers() throws {
        let rig = try LiveRig()
        let counter = Counter()
        let tokens = (0..<1000).map { _ in rig.manager.onEvent(delivery: rig.delivery) { _ in counter.increment() } }
        rig.showAndSettle()
        #expect(counter.value == 2000)
        #expect(rig.manager.subscriberCount == 1000)
        tokens.forEach { $0.cancel() }
        #expect(rig.manager.subscriberCount == 0)
    }

    @Test("fluent chaining registers several closures on one token")
    func fluentChain() throws {
        let rig = try LiveRig()
        let seen = UpdateBox()
        let token = rig.manager.on(.willShow, delivery: rig.delivery) { seen.append($0) }.on(
            .didShow, delivery: rig.delivery
        ) { seen.append($0) }.on(.didHide, delivery: rig.delivery) {
            seen.append($0)
        }
        #expect(rig.manager.subscriberCount == 3)
        rig.showAndSettle()
        rig.backend.observe(Fixture.osk, frame: nil)
        rig.drain()
        #expect(seen.all.map(\.event) == [.willShow, .didShow, .didHide])
        token.cancel()
        #expect(rig.manager.subscriberCount == 0)
    }

    @Test("pause drops events but keeps tracking; resume hands them out again")
    func pauseResume() throws {
        let rig = try LiveRig()
        let seen = UpdateBox()
        let token = rig.manager.onEvent(delivery: rig.delivery) { seen.append($0) }
        rig.manager.pause()
        rig.showAndSettle()
        #expect(seen.all.isEmpty)
        #expect(rig.manager.isVisible && rig.manager.currentFrame == Fixture.docked)
        rig.manager.resume()
        rig.backend.observe(Fixture.osk, frame: nil)
        rig.drain()
        #expect(seen.all.map(\.event) == [.willHide, .didHide])
        _ = token
    }

    @Test("clear removes every closure")
    func clear() throws {
        let rig = try LiveRig()
        let seen = UpdateBox()
        let token = rig.manager.onEvent(delivery: rig.delivery) { seen.append($0) }
        rig.manager.clear()
        #expect(rig.manager.subscriberCount == 0)
        rig.showAndSettle()
        #expect(seen.all.isEmpty)
        token.cancel()
    }

    @Test("updates first yields the current state, then one snapshot per event")
    func updatesStream() async throws {
        let rig = try LiveRig()
        rig.showAndSettle()
        var iterator = rig.manager.updates().makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.update == nil && first?.keyboards.map(\.frame) == [Fixture.docked])
        rig.backend.observe(Fixture.osk, frame: nil)
        #expect(await iterator.next()?.update?.event == .willHide)
        let last = await iterator.next()
        #expect(last?.update?.event == .didHide && last?.isVisible == false)
        rig.manager.stop()
        #expect(await iterator.next() == nil)
    }

    @Test("queries: visible state, frames, covered region and window insets")
    func queries() throws {
        let rig = try LiveRig()
        #expect(!rig.manager.isVisible && rig.manager.currentFrame == nil && rig.manager.coveredRegion() == nil)
        rig.showAndSettle()
        let panel = Rect(x: 300, y: 300, width: 200, height: 100)
        rig.backend.observe(Fixture.panel, frame: panel, output: Fixture.screen)
        rig.drain()
        #expect(rig.manager.visibleKeyboards.count == 2)
        #expect(rig.manager.currentFrame == Fixture.docked)
        #expect(rig.manager.coveredRegion() == Rect(x: 0, y: 300, width: 1280, height: 500))
        #expect(rig.manager.coveredRegion(includingPanels: false) == Fixture.docked)
        #expect(
            rig.manager.insets(forWindow: Rect(x: 0, y: 0, width: 1280, height: 800), includingPanels: false)
                == EdgeInsets(bottom: 240))
    }

    @Test("a lost display server hides every visible keyboard and reports the failure")
    func failureHides() throws {
        let rig = try LiveRig()
        let seen = UpdateBox()
        let failure = FailureBox()
        let tokens = [
            rig.manager.onEvent(delivery: rig.delivery) { seen.append($0) },
            rig.manager.onStop(delivery: rig.delivery) { failure.set($0) },
        ]
        rig.showAndSettle()
        rig.backend.fail("lost the connection to the X server :42")
        // The failure reaches the loop later: its stop callback comes after the hides, on the same queue.
        let end = Date().addingTimeInterval(10)
        while failure.get() == nil && Date() < end { Thread.sleep(forTimeInterval: 0.002) }
        rig.drain()
        #expect(seen.all.map(\.event) == [.willShow, .didShow, .willHide, .didHide])
        #expect(failure.get()?.reason == "lost the connection to the X server :42")
        #expect(!rig.manager.isRunning && !rig.manager.isVisible)
        _ = tokens
    }

    @Test("stop forgets keyboards silently; start again works; a released manager stops its backend")
    func stopAndRestart() throws {
        let rig = try LiveRig()
        let seen = UpdateBox()
        let token = rig.manager.onEvent(delivery: rig.delivery) { seen.append($0) }
        rig.showAndSettle()
        rig.manager.stop()
        #expect(!rig.manager.isVisible && !rig.backend.isStarted)
        rig.backend.observe(Fixture.osk, frame: nil)
        try rig.manager.start()
        rig.showAndSettle()
        #expect(seen.all.map(\.event) == [.willShow, .didShow, .willShow, .didShow])
        let backend = InMemoryBackend()
        var manager: KeyboardManager? = KeyboardManager(backend: backend)
        try manager?.start()
        #expect(backend.isStarted)
        manager = nil
        #expect(!backend.isStarted)
        _ = token
    }

    @Test("hideKeyboard asks the backend to hide the visible keyboards, and the hide is observed")
    func hideKeyboard() throws {
        let rig = try LiveRig()
        let seen = UpdateBox()
        let token = rig.manager.onEvent(delivery: rig.delivery) { seen.append($0) }
        #expect(throws: KeyboardControlError.notVisible("")) { try rig.manager.hideKeyboard() }
        rig.showAndSettle()
        rig.backend.observe(Fixture.panel, frame: Rect(x: 1, y: 1, width: 5, height: 5), output: Fixture.screen)
        rig.drain()
        try rig.manager.hideKeyboard()
        rig.drain()
        #expect(rig.backend.hideRequests == [Fixture.osk])
        #expect(
            seen.all.filter { $0.keyboard == Fixture.osk }.map(\.event) == [.willShow, .didShow, .willHide, .didHide])
        let replay = KeyboardManager(backend: ReplayBackend(source: .text("")))
        #expect(throws: KeyboardControlError.notVisible("x")) { try replay.hideKeyboard(id: "x") }
        #expect(throws: KeyboardControlError.unsupported("the replay backend cannot hide keyboards")) {
            try ReplayBackend(source: .text("")).requestHide(of: Fixture.osk)
        }
        _ = token
    }

    @Test("textInputActive decides isLocal for backends that cannot tell")
    func textInputOwnership() throws {
        let rig = try LiveRig()
        let seen = UpdateBox()
        let token = rig.manager.on(.didShow, delivery: rig.delivery) { seen.append($0) }
        rig.manager.textInputActive = true
        rig.showAndSettle()
        #expect(seen.all.first?.isLocal == true)
        _ = token
    }
}

final class TokenHolder: @unchecked Sendable {
    var token: KeyboardSubscription?
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// Whether code runs on the main queue, which is the main actor's executor. (On Linux the main
/// queue may be drained by a thread other than the process's first one, so `Thread.isMainThread`
/// is not the right question.)
enum MainQueue {
    private static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
}
