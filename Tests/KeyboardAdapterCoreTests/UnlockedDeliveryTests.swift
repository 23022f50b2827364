import Dispatch
import Foundation
import KeyboardAdapterTesting
import KeyboardBackendInterface
import Synchronization
import Testing

@testable import KeyboardAdapterCore

/// Nothing of the app's is called, yielded to, finished or released while a library lock is
/// held: each is checked at the moment it happens, on the thread it happens on (the manager's
/// lock records its holder in debug builds), so a change that moves one of them back under the
/// lock fails here.
@Suite("Manager: nothing of the app's under a lock")
struct UnlockedDeliveryTests {
    /// Where each check was made, and whether the lock was held there.
    final class Checks: Sendable {
        private let seen = Mutex<[(String, Bool)]>([])
        func record(_ what: String, _ manager: KeyboardManager) {
            let held = manager.state.isHeldByCurrentThread
            seen.withLock { $0.append((what, held)) }
        }
        var underLock: [String] { seen.withLock { $0.filter(\.1).map(\.0) } }
        var all: [String] { seen.withLock { $0.map(\.0) } }
    }

    /// Records its own release.
    final class Owned: Sendable {
        let onRelease: @Sendable () -> Void
        init(onRelease: @escaping @Sendable () -> Void) { self.onRelease = onRelease }
        deinit { onRelease() }
    }

    @Test("immediate callbacks, stream elements and ends, stop callbacks, released closures: none under the lock")
    func nothingUnderTheLock() throws {
        #if DEBUG
            let backend = InMemoryBackend()
            let manager = KeyboardManager(backend: backend, configuration: .init(settleInterval: 0))
            let checks = Checks()
            let events = manager.onEvent(delivery: .immediate) { update in
                checks.record("immediate \(update.event)", manager)
            }
            let stopped = manager.onStop(delivery: .immediate) { _ in checks.record("stop callback", manager) }
            // A stream as `updates()` makes one, with its two calls checked.
            let outbox = StreamOutbox<KeyboardSnapshot>(
                yield: { snapshot in checks.record("stream \(snapshot.update?.event.rawValue ?? "first")", manager) },
                finish: { checks.record("stream finished", manager) })
            manager.state.access { state in
                outbox.append(KeyboardSnapshot(keyboards: state.sortedVisible))
                _ = state.subscribers.addStream(outbox)
            }
            outbox.drain()
            // A closure whose captured object (held by nothing else) records its release, cancelled
            // from its own callback.
            let token = Mutex<KeyboardSubscription?>(nil)
            token.withLock { slot in
                slot = manager.on(.didShow, delivery: .immediate) {
                    [owned = Owned { checks.record("released closure", manager) }] _ in
                    _ = owned
                    token.withLock { $0?.cancel() }
                }
            }
            try manager.start()
            backend.observe(Fixture.osk, frame: Fixture.docked, output: Fixture.screen)
            try Wait.until("didShow") { checks.all.contains("immediate didShow") }
            backend.fail("gone")
            try Wait.until("the stop") {
                checks.all.contains("stop callback") && checks.all.contains("stream finished")
            }
            #expect(checks.underLock.isEmpty, "under the lock: \(checks.underLock)")
            for expected in [
                "immediate willShow", "immediate didShow", "stream first", "stream willShow", "stream didShow",
                "stream willHide", "stream didHide", "stream finished", "stop callback",
            ] {
                #expect(checks.all.contains(expected), "\(expected) never happened: \(checks.all)")
            }
            #expect(checks.all.contains("released closure"), "\(checks.all)")
            token.withLock { $0 = nil }
            events.cancel()
            stopped.cancel()
        #endif
    }

    @Test("a registration replaced in the registry is let go of outside its lock: its deinit may use the registry")
    func registryReleasesOutsideItsLock() throws {
        let registry = BackendRegistry()
        let released = DispatchSemaphore(value: 0)
        do {
            let owned = Owned {
                // Takes the registry's lock: under it, this would deadlock.
                _ = registry.all
                released.signal()
            }
            registry.register(
                .init(
                    name: "memory", hint: .init(variables: []),
                    make: { [owned] in
                        _ = owned
                        return InMemoryBackend()
                    }))
        }
        let replaced = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            registry.register(.init(name: "memory", hint: .init(variables: []), make: { InMemoryBackend() }))
            replaced.signal()
        }
        #expect(
            replaced.wait(timeout: .now() + 10) == .success, "register() hung releasing the registration it replaced")
        #expect(released.wait(timeout: .now() + 1) == .success)
    }
}
