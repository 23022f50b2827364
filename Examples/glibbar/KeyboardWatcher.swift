import CGLib
import Glibc
import KeyboardAdapter

/// The app object of a GLib program: it follows the keyboards for as long as it lives, through a
/// unix descriptor source on the default main context, and prints one line per update. It is used
/// on the main thread only, the one that runs the GLib loop.
final class KeyboardWatcher {
    private let manager: KeyboardManager
    private let loop: OpaquePointer
    private let limit: Int?
    private var delivered = 0
    private var token: KeyboardSubscription?
    private var source: guint = 0

    /// A watcher for `manager` that quits `loop` after `limit` updates (never when nil).
    init(manager: KeyboardManager, loop: OpaquePointer, exitAfter limit: Int?) {
        self.manager = manager
        self.loop = loop
        self.limit = limit
    }

    /// Subscribes, starts the manager and adds its descriptor to the loop.
    func start() throws {
        // The closure is @Sendable and runs inside dispatchPending(), on the thread that runs the
        // loop: the main thread, which calls start() too, so the closure compares with it.
        let subscriber = pthread_self()
        token = manager.onEvent(delivery: .descriptor) { update in
            let thread = pthread_equal(pthread_self(), subscriber) != 0 ? "the main thread" : "another thread"
            say("\(update.event) \(update.keyboard.name) \(update.endFrame) on \(thread)")
        }
        try manager.start()
        // A @convention(c) callback captures nothing, so `self` travels as user_data. Unretained:
        // this object outlives its source, which stop() removes, and deinit calls stop().
        source = g_unix_fd_add(
            manager.pollDescriptor, G_IO_IN,
            { _, _, context in
                let watcher = Unmanaged<KeyboardWatcher>.fromOpaque(context!).takeUnretainedValue()
                watcher.delivered += watcher.manager.dispatchPending()  // runs the held closures here
                if watcher.delivered >= watcher.limit ?? .max { g_main_loop_quit(watcher.loop) }
                return 1  // G_SOURCE_CONTINUE: the descriptor stays in the loop
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Removes the source, unsubscribes (releasing the token does it) and stops the manager.
    /// Idempotent.
    func stop() {
        if source != 0 { g_source_remove(source) }
        source = 0
        token = nil
        manager.stop()
    }

    deinit { stop() }
}

/// One line on standard output in one write (unbuffered, so that a reader sees it at once).
func say(_ line: String, to descriptor: Int32 = 1) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
}
