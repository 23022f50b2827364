import Dispatch
import Foundation
import Glibc
import KeyboardAdapterTesting
@_spi(BackendRun) import KeyboardBackendInterface
import Synchronization

@testable import KeyboardAdapterCore

/// One public call of the manager's, made from inside a callback or a deinit.
enum ManagerCall: String, CaseIterable, Sendable, CustomStringConvertible {
    case start, stop, restart, pause, resume, clear, cancelOwnToken, cancelOtherToken
    case subscribeClosures, subscribeStreams, setDelegate, hide, hideWithCompletion, show, showWithCompletion
    case queries, textInput, appIdentity, dispatchPending

    var description: String { rawValue }

    /// Makes the call on `manager`; what it subscribes is kept in `jar` (so that nothing it
    /// registers is released inside the call), `own` is the token of the callback making it.
    func perform(on manager: KeyboardManager, jar: Jar, own: KeyboardSubscription?) {
        switch self {
        case .start: try? manager.start()
        case .stop: manager.stop()
        case .restart:
            manager.stop()
            try? manager.start()
        case .pause: manager.pause()
        case .resume: manager.resume()
        case .clear: manager.clear()
        case .cancelOwnToken: own?.cancel()
        case .cancelOtherToken: jar.firstToken?.cancel()
        case .subscribeClosures:
            jar.keep(manager.onEvent(delivery: .immediate) { _ in })
            jar.keep(manager.on(.didHide) { _ in }.on(.willShow, delivery: .descriptor) { _ in })
            jar.keep(manager.onProgress(delivery: .queue(.global())) { _ in })
            jar.keep(manager.onLayoutChange { _ in })
            jar.keep(manager.onStop(delivery: .immediate) { _ in })
        case .subscribeStreams:
            jar.keep(manager.updates())
            jar.keep(manager.progressUpdates())
        case .setDelegate:
            let delegate = jar.delegate
            let set = { @MainActor in manager.delegate = delegate }
            if Thread.isMainThread { MainActor.assumeIsolated(set) } else { DispatchQueue.main.async(execute: set) }
        case .hide: try? manager.hideKeyboard()
        case .hideWithCompletion: manager.hideKeyboard { result in jar.keep(result) }
        case .show: try? manager.showKeyboard()
        case .showWithCompletion: manager.showKeyboard { result in jar.keep(result) }
        case .queries:
            jar.keep(
                [
                    "\(manager.isRunning) \(manager.isPaused) \(manager.isVisible) \(manager.visibleKeyboards)",
                    "\(String(describing: manager.currentFrame)) \(String(describing: manager.coveredRegion()))",
                    "\(manager.insets(forWindow: Fixture.screen.frame)) \(manager.subscriberCount)",
                    "\(manager.keyboardServices) \(manager.showSupport) \(manager.pollDescriptor)",
                ])
        case .textInput:
            manager.textInputActive = !(manager.textInputActive ?? false)
        case .appIdentity: manager.setAppIdentity(.currentProcess)
        case .dispatchPending: manager.dispatchPending()
        }
    }
}

/// Where a test's subscriber is called.
enum DeliveryMode: String, CaseIterable, Sendable, CustomStringConvertible {
    case immediate, queue, descriptor, mainActor, delegate, updates, progressUpdates

    var description: String { rawValue }
}

/// Keeps what calls made inside callbacks registered, until the test lets go of it on its own
/// thread; the test's objects are released there, never inside the library.
final class Jar: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Any] = []
    private var tokens: [KeyboardSubscription] = []
    let delegate = RecordingDelegate()

    func keep(_ value: Any) {
        lock.withLock {
            if let token = value as? KeyboardSubscription { tokens.append(token) }
            values.append(value)
        }
    }

    var firstToken: KeyboardSubscription? { lock.withLock { tokens.first } }

    /// Releases everything, here.
    func empty() {
        let all = lock.withLock { () -> ([Any], [KeyboardSubscription]) in
            defer {
                values = []
                tokens = []
            }
            return (values, tokens)
        }
        _ = all
    }
}

/// A delegate that only counts.
@MainActor
final class RecordingDelegate: KeyboardManagerDelegate, Sendable {
    private(set) var events: [KeyboardEvent] = []
    var onWillShow: (@MainActor () -> Void)?

    nonisolated init() {}

    func keyboardManager(_ manager: KeyboardManager, willShow update: KeyboardUpdate) {
        events.append(.willShow)
        onWillShow?()
    }
}

/// Calls `dispatchPending()` whenever the manager's descriptor is readable, as an app's own
/// loop would, on a thread of its own.
final class DescriptorPump: Sendable {
    private let running = Atomic<Bool>(true)
    private let done = DispatchSemaphore(value: 0)

    init(_ manager: KeyboardManager) {
        let descriptor = manager.pollDescriptor
        Thread.detachNewThread { [self, weak manager] in
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            while running.load(ordering: .acquiring) {
                if poll(&entry, 1, 20) > 0 { manager?.dispatchPending() }
            }
            done.signal()
        }
    }

    func stop() {
        running.store(false, ordering: .releasing)
        done.wait()
    }
}

/// Calls `body` once, whichever thread asks first.
final class Once: Sendable {
    private let fired = Atomic<Bool>(false)
    func callAsFunction(_ body: () -> Void) {
        if !fired.exchange(true, ordering: .acquiringAndReleasing) { body() }
    }
    var hasFired: Bool { fired.load(ordering: .acquiring) }
}

/// A manager on an in-memory backend with one subscriber of each delivery mode alive, and a
/// way to drive a whole show (with intermediate frames) and hide through it.
struct ReentrancyRig {
    let backend = InMemoryBackend()
    let manager: KeyboardManager
    let jar = Jar()
    let pump: DescriptorPump
    private(set) var tasks: [Task<Void, Never>] = []

    init() throws {
        manager = KeyboardManager(backend: backend, configuration: .init(settleInterval: 0.02))
        pump = DescriptorPump(manager)
        try manager.start()
    }

    /// Subscribes in `mode`; `body` runs in the first callback (the first progress frame for
    /// progress modes), with the subscriber's own token.
    mutating func subscribe(_ mode: DeliveryMode, body: @escaping @Sendable (KeyboardSubscription?) -> Void) {
        let once = Once()
        let manager = manager
        let tokenBox = TokenBox()
        let fire: @Sendable () -> Void = { once { body(tokenBox.token) } }
        switch mode {
        case .immediate: tokenBox.token = manager.onEvent(delivery: .immediate) { _ in fire() }
        case .queue:
            tokenBox.token = manager.onEvent(delivery: .queue(DispatchQueue(label: "reentrancy"))) { _ in fire() }
        case .descriptor: tokenBox.token = manager.onEvent(delivery: .descriptor) { _ in fire() }
        case .mainActor: tokenBox.token = manager.onEvent { _ in fire() }
        case .delegate:
            let delegate = RecordingDelegate()
            jar.keep(delegate)
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    delegate.onWillShow = fire
                    manager.delegate = delegate
                }
            }
        case .updates:
            let stream = manager.updates()
            tasks.append(Task { for await snapshot in stream where snapshot.update != nil { fire() } })
        case .progressUpdates:
            let stream = manager.progressUpdates()
            tasks.append(Task { for await _ in stream { fire() } })
        }
        if let token = tokenBox.token { jar.keep(token) }
    }

    /// Every other kind of subscriber, alive while the call is made.
    func subscribeBystanders() {
        jar.keep(manager.onEvent(delivery: .immediate) { _ in })
        jar.keep(manager.onEvent(delivery: .descriptor) { _ in })
        jar.keep(manager.onEvent(delivery: .queue(.global())) { _ in })
        jar.keep(manager.onEvent { _ in })
        jar.keep(manager.onProgress(delivery: .immediate) { _ in })
        jar.keep(manager.onLayoutChange(delivery: .immediate) { _ in })
        jar.keep(manager.onStop(delivery: .immediate) { _ in })
        jar.keep(manager.updates())
        jar.keep(manager.progressUpdates())
    }

    /// A show that slides in over three frames, then settles, then a hide.
    func showSlideAndHide() async {
        let start = Fixture.docked.offsetBy(dx: 0, dy: 120)
        backend.observe(Fixture.osk, frame: start, output: Fixture.screen)
        backend.observe(Fixture.osk, frame: start.offsetBy(dx: 0, dy: -60), output: Fixture.screen)
        backend.observe(Fixture.osk, frame: Fixture.docked, output: Fixture.screen)
        await settle()
        backend.observe(Fixture.osk, frame: nil)
        await settle()
    }

    /// Waits for the manager to settle and for the main queue and other queues to run.
    func settle() async {
        let end = MonotonicClock.now() + 5
        while !manager.isSettled && MonotonicClock.now() < end { try? await Task.sleep(for: .milliseconds(2)) }
        try? await Task.sleep(for: .milliseconds(40))
        await MainActor.run {}
    }

    /// After the scenario: the manager still works from scratch (stop, resume, start, a whole show
    /// and hide).
    func stillWorks() async throws -> [KeyboardEvent] {
        manager.stop()
        manager.resume()
        try manager.start()
        let seen = UpdateBox()
        let token = manager.onEvent(delivery: .immediate) { seen.append($0) }
        backend.observe(Fixture.osk, frame: Fixture.docked, output: Fixture.screen)
        await settle()
        backend.observe(Fixture.osk, frame: nil)
        await settle()
        token.cancel()
        return seen.all.map(\.event)
    }

    /// Ends the rig: every subscriber, stream and thread, released on the test's thread.
    func end() async {
        manager.stop()
        pump.stop()
        for task in tasks { await task.value }
        jar.empty()
    }
}

/// A token set after the closure that uses it is made.
final class TokenBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: KeyboardSubscription?
    var token: KeyboardSubscription? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
