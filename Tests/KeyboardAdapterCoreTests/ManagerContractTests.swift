import Dispatch
import Foundation
import KeyboardAdapterTesting
@_spi(BackendRun) import KeyboardBackendInterface
import Synchronization
import Testing

@testable import KeyboardAdapterCore

/// The manager's promises to its subscribers: lifecycles that race, tokens, pause, late
/// subscribers, per-event snapshots, the threads each delivery runs on, and keyboards at an
/// unknown place.
@Suite("Manager: contracts")
struct ManagerContractTests {
    @Test("start and stop racing from two threads never leave a backend running behind a stopped manager")
    func startStopRace() throws {
        let backend = InMemoryBackend()
        let manager = KeyboardManager(backend: backend)
        for _ in 0..<200 {
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) { try? manager.start() }
            DispatchQueue.global().async(group: group) { manager.stop() }
            group.wait()
            #expect(manager.isRunning == backend.isStarted)
        }
        manager.stop()
        #expect(!manager.isRunning && !backend.isStarted)
    }

    @Test("on() after cancel() registers nothing and the token stays inactive")
    func onAfterCancel() throws {
        let rig = try LiveRig()
        let seen = UpdateBox()
        let token = rig.manager.onEvent(delivery: rig.delivery) { seen.append($0) }
        token.cancel()
        token.on(.willShow, delivery: rig.delivery) { seen.append($0) }
        #expect(!token.isActive)
        #expect(rig.manager.subscriberCount == 0)
        rig.showAndSettle()
        #expect(seen.all.isEmpty)
    }

    @Test("pause keeps pairs whole: a will handed out before it gets its did; one begun during it is never handed out")
    func pauseKeepsPairs() throws {
        let rig = try LiveRig(settle: 0.2)
        let seen = UpdateBox()
        let token = rig.manager.onEvent(delivery: rig.delivery) { seen.append($0) }
        rig.backend.observe(Fixture.osk, frame: Fixture.docked, output: Fixture.screen)
        try Wait.until("willShow processed") { rig.manager.isVisible }
        rig.manager.pause()
        rig.drain()
        // A move that begins while paused: neither its will nor, after resume, its did.
        rig.backend.observe(Fixture.osk, frame: Fixture.docked.offsetBy(dx: 0, dy: -10), output: Fixture.screen)
        // A turn of the loop: the move has been processed before the resume.
        #expect(!rig.manager.isSettled)
        rig.manager.resume()
        rig.drain()
        #expect(seen.all.map(\.event) == [.willShow, .didShow])
        rig.backend.observe(Fixture.osk, frame: nil)
        rig.drain()
        #expect(seen.all.map(\.event) == [.willShow, .didShow, .willHide, .didHide])
        _ = token
    }

    @Test("a subscriber added half-way through a show gets no did without its will, and reads the state instead")
    func lateSubscriber() throws {
        let rig = try LiveRig(settle: 0.2)
        rig.backend.observe(Fixture.osk, frame: Fixture.docked, output: Fixture.screen)
        try Wait.until("willShow processed") { rig.manager.isVisible }
        let seen = UpdateBox()
        let token = rig.manager.onEvent(delivery: rig.delivery) { seen.append($0) }
        rig.drain()
        #expect(seen.all.isEmpty)
        #expect(rig.manager.visibleKeyboards.map(\.frame) == [Fixture.docked])
        rig.backend.observe(Fixture.osk, frame: nil)
        rig.drain()
        #expect(seen.all.map(\.event) == [.willHide, .didHide])
        _ = token
    }

    @Test("each snapshot of a batch carries the keyboards visible as of its own event")
    func perUpdateSnapshots() async throws {
        let rig = try LiveRig(settle: 0.05)
        var iterator = rig.manager.updates().makeAsyncIterator()
        #expect(await iterator.next()?.keyboards.isEmpty == true)
        // Times in the future, so that the loop's clock never settles on its own: the second
        // observation settles the first keyboard's show and starts the panel's, in one batch.
        let base = MonotonicClock.now() + 1000
        rig.backend.observe(Fixture.osk, frame: Fixture.docked, output: Fixture.screen, time: base)
        let panel = Rect(x: 300, y: 300, width: 200, height: 100)
        rig.backend.observe(Fixture.panel, frame: panel, output: Fixture.screen, time: base + 0.1)
        let willShow = await iterator.next()
        let didShow = await iterator.next()
        let panelShow = await iterator.next()
        #expect(willShow?.update?.event == .willShow && willShow?.keyboards.map(\.keyboard) == [Fixture.osk])
        #expect(didShow?.update?.event == .didShow && didShow?.keyboards.map(\.keyboard) == [Fixture.osk])
        #expect(
            panelShow?.update?.keyboard == Fixture.panel
                && panelShow?.keyboards.map(\.keyboard.id).sorted() == [Fixture.osk.id, Fixture.panel.id].sorted())
        rig.manager.stop()
    }

    @Test("immediate closures run on the loop's thread, descriptor closures on the thread that dispatches")
    func deliveryThreads() throws {
        let rig = try LiveRig(settle: 0)
        let caller = pthread_self()
        let threads = Mutex<[String]>([])
        let immediate = rig.manager.onEvent(delivery: .immediate) { _ in
            threads.withLock { $0.append(pthread_equal(pthread_self(), caller) != 0 ? "caller" : "loop") }
        }
        let held = rig.manager.onEvent(delivery: .descriptor) { _ in
            threads.withLock { $0.append(pthread_equal(pthread_self(), caller) != 0 ? "caller" : "other") }
        }
        rig.backend.observe(Fixture.osk, frame: Fixture.docked, output: Fixture.screen)
        var descriptor = pollfd(fd: rig.manager.pollDescriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&descriptor, 1, 5000) == 1, "the descriptor becomes readable")
        rig.drain()
        #expect(rig.manager.dispatchPending() == 2)
        #expect(threads.withLock { $0 } == ["loop", "loop", "caller", "caller"])
        descriptor.revents = 0
        #expect(poll(&descriptor, 1, 0) == 0, "drained: no longer readable")
        #expect(rig.manager.dispatchPending() == 0)
        _ = (immediate, held)
    }

    @Test("deliveries nobody drains are reported once, saying what to do")
    func undrainedDeliveries() throws {
        let messages = Mutex<[String]>([])
        let backend = InMemoryBackend()
        let manager = KeyboardManager(
            backend: backend,
            configuration: .init(
                settleInterval: 0, undrainedWarningDelay: 0.1,
                diagnostics: { message in messages.withLock { $0.append(message) } }))
        try manager.start()
        let token = manager.onEvent(delivery: .descriptor) { _ in }
        backend.observe(Fixture.osk, frame: Fixture.docked, output: Fixture.screen)
        Thread.sleep(forTimeInterval: 0.2)
        backend.observe(Fixture.osk, frame: nil)
        backend.observe(Fixture.osk, frame: Fixture.docked, output: Fixture.screen)
        try Wait.until("the warning") { !messages.withLock { $0.isEmpty } }
        #expect(messages.withLock { $0.count } == 1)
        #expect(messages.withLock { $0.first?.contains("nothing calls dispatchPending()") } == true)
        manager.stop()
        _ = token
    }

    @Test("a keyboard known to be up at an unknown place: visible, zero frames marked unknown, no insets")
    func unknownFrame() throws {
        let rig = try LiveRig(settle: 0.01)
        let seen = UpdateBox()
        let token = rig.manager.onEvent(delivery: rig.delivery) { seen.append($0) }
        let up = KeyboardObservation(
            time: MonotonicClock.now(), keyboard: Fixture.osk, frame: nil, output: Fixture.screen,
            geometry: .unknown, isShown: true)
        rig.backend.observe(up)
        rig.drain()
        #expect(seen.all.map(\.event) == [.willShow, .didShow])
        #expect(seen.all.allSatisfy { !$0.hasKnownFrame && $0.beginFrame == .zero && $0.endFrame == .zero })
        #expect(seen.all.allSatisfy { $0.output == Fixture.screen && $0.geometry == .unknown })
        #expect(rig.manager.isVisible && rig.manager.currentFrame == nil && rig.manager.coveredRegion() == nil)
        #expect(rig.manager.insets(forWindow: Fixture.screen.frame) == .zero)
        rig.backend.observe(Fixture.osk, frame: nil)
        rig.drain()
        #expect(seen.all.map(\.event) == [.willShow, .didShow, .willHide, .didHide])
        #expect(seen.all.allSatisfy { $0.endFrame == .zero })
        #expect(!rig.manager.isVisible)
        _ = token
    }

    @Test("stop from inside an immediate callback ends the loop without waiting for itself")
    func stopFromCallback() throws {
        let backend = InMemoryBackend()
        let manager = KeyboardManager(backend: backend, configuration: .init(settleInterval: 0))
        let calls = Mutex(0)
        let token = manager.onEvent(delivery: .immediate) { _ in
            calls.withLock { $0 += 1 }
            manager.stop()
        }
        try manager.start()
        backend.observe(Fixture.osk, frame: Fixture.docked, output: Fixture.screen)
        try Wait.until("the stop") { !manager.isRunning }
        #expect(!backend.isStarted)
        #expect(calls.withLock { $0 } == 1)
        try manager.start()
        #expect(manager.isRunning && backend.isStarted)
        manager.stop()
        _ = token
    }
}

extension Wait {
    /// Waits up to 5 s for `condition`; throws naming `what` when it never holds.
    static func until(_ what: String, _ condition: () -> Bool) throws {
        let end = MonotonicClock.now() + 5
        while !condition() {
            guard MonotonicClock.now() < end else { throw ReplayTestError.timeout }
            Thread.sleep(forTimeInterval: 0.002)
        }
    }
}

/// Waiting helpers for the core tests (which do not depend on the integration test support).
enum Wait {}

/// Any app judged by the focus a keyboard showed with: how one watcher answers many apps.
@Suite("AppIdentity judged by a focused top-level")
struct FocusJudgementTests {
    @Test("a match of any kind is local; a told kind without a match is foreign; nothing comparable is nil")
    func judgements() {
        let x11 = FocusedTopLevel(
            windowIDs: [0x40_0001, 0x20_0003], processIDs: [4242], appIDs: ["gedit", "Gedit"],
            knows: [.windows, .processes, .appIDs])
        #expect(AppIdentity(processIDs: [4242]).isLocal(given: x11) == true)
        #expect(AppIdentity(windowIDs: [0x20_0003]).isLocal(given: x11) == true)
        #expect(AppIdentity(appIDs: ["Gedit.desktop"]).isLocal(given: x11) == true)
        #expect(AppIdentity(processIDs: [7], appIDs: ["firefox"]).isLocal(given: x11) == false)
        #expect(AppIdentity().isLocal(given: x11) == nil, "an empty identity compares nothing")
        #expect(AppIdentity(processIDs: [4242]).isLocal(given: nil) == nil, "no focus known")
        let nothingFocused = FocusedTopLevel(knows: [.appIDs])
        #expect(AppIdentity(appIDs: ["gedit"]).isLocal(given: nothingFocused) == false)
        #expect(AppIdentity(processIDs: [4242]).isLocal(given: nothingFocused) == nil, "pids not told here")
        let long = String(repeating: "a", count: AppIdentity.maximumAppIDBytes + 1)
        #expect(FocusedTopLevel(appIDs: [long, ""], knows: [.appIDs]).appIDs.isEmpty, "bounded like every app id")
    }
}
