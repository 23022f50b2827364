import KeyboardAdapter
import Synchronization

/// The app's one use of the library: a manager for this session whose closures are held for the
/// app's own loop (delivery `.descriptor`). The main thread sleeps in poll() on the X connection
/// and the manager's descriptor, and calls ``take()`` when the descriptor is readable; the
/// closures then run on the main thread, inside that call.
final class KeyboardFeed {
    /// The running manager; nil when no backend can run here.
    private(set) var manager: KeyboardManager?
    /// Why keyboards are not followed, when they are not.
    private(set) var problem: String?
    /// The backend's name, when one runs.
    var backendName: String? { manager?.backendName }
    private var subscriptions = Set<KeyboardSubscription>()
    /// What the closures saw during one `dispatchPending()`. The closures are `@Sendable`, so
    /// they hand their values over through a lock rather than touching the app's state.
    private let inbox = Inbox()

    /// Creates the manager for this session (or the backend named) and starts it. On failure the
    /// app still runs, and ``problem`` says why keyboards are not followed.
    init(backend name: String?) {
        do {
            let manager = try KeyboardManager.forThisSession(backend: name)
            manager.onEvent(delivery: .descriptor) { [inbox] in inbox.post(.keyboard($0)) }
                .store(in: &subscriptions)
            manager.onProgress(delivery: .descriptor) { [inbox] in inbox.post(.progress($0)) }
                .store(in: &subscriptions)
            manager.onStop(delivery: .descriptor) { [inbox] in inbox.post(.backendStopped($0)) }.store(
                in: &subscriptions)
            // Start reports the keyboards already visible as shown, so nothing else is needed
            // to catch up with a keyboard that was there before the app.
            try manager.start()
            self.manager = manager
        } catch {
            subscriptions.removeAll()
            problem = "\(error)"
        }
    }

    /// The descriptor to poll: readable while updates wait for ``take()``; -1 without a manager.
    var descriptor: Int32 { manager?.pollDescriptor ?? -1 }

    /// Runs the held closures on this thread and returns what they saw, oldest first.
    func take() -> [Message] {
        manager?.dispatchPending()
        return inbox.take()
    }

    /// Unsubscribes (no closure runs after this returns) and stops the backend. Idempotent.
    func stop() {
        subscriptions.forEach { $0.cancel() }
        subscriptions.removeAll()
        manager?.stop()
        manager = nil
    }
}

/// Messages handed from the closures to the loop that called `dispatchPending()`.
private final class Inbox: Sendable {
    private let messages = Mutex<[Message]>([])

    func post(_ message: Message) { messages.withLock { $0.append(message) } }

    func take() -> [Message] {
        messages.withLock { queued in
            defer { queued.removeAll() }
            return queued
        }
    }
}
