import Dispatch
import KeyboardAdapter

/// The app's one use of the library: a manager for this session whose closures run on a private
/// serial queue (the main thread sleeps in poll() and never drains the main queue), posting every
/// update to the mailbox; the main loop applies them on the main thread.
final class KeyboardFeed {
    /// The running manager; nil when no backend can run here.
    private(set) var manager: KeyboardManager?
    /// Why keyboards are not followed, when they are not.
    private(set) var problem: String?
    /// The backend's name, when one runs.
    var backendName: String? { manager?.backend.name }
    private var subscriptions = Set<KeyboardSubscription>()

    /// Creates the manager for this session (or the backend named) and starts it. On failure the
    /// app still runs, and ``problem`` says why keyboards are not followed.
    init(backend name: String?, mailbox: Mailbox) {
        let queue = DispatchQueue(label: "kbdemo.keyboard-updates")
        do {
            let manager = try KeyboardManager.forThisSession(
                backend: name, configuration: KeyboardManager.Configuration(callbackQueue: queue))
            manager.onEvent { mailbox.post(.keyboard($0)) }.store(in: &subscriptions)
            manager.onStop { mailbox.post(.backendStopped($0)) }.store(in: &subscriptions)
            // Start reports the keyboards already visible as shown, so nothing else is needed
            // to catch up with a keyboard that was there before the app.
            try manager.start()
            self.manager = manager
        } catch {
            subscriptions.removeAll()
            problem = "\(error)"
        }
    }

    /// Unsubscribes (no closure runs after this returns) and stops the backend. Idempotent.
    func stop() {
        subscriptions.forEach { $0.cancel() }
        subscriptions.removeAll()
        manager?.stop()
        manager = nil
    }
}
