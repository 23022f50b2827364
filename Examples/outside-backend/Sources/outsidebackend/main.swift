import Glibc
import KeyboardAdapterCore
import Synchronization

// outsidebackend: runs a manager on a backend built outside the package and prints each event it
// delivers, then `ended`. The manager's descriptor is polled here, as an app with a loop of its own.

let manager = KeyboardManager(backend: ScriptedBackend())
// Set by the stop's callback, which runs in `dispatchPending()` on this thread: the manager says
// it is no longer running before that callback is handed over, so its state cannot tell the end.
let ended = Atomic<Bool>(false)
let events = manager.onEvent(delivery: .descriptor) { update in
    print("\(update.event) \(update.keyboard.id) \(update.endFrame)")
}
let stop = manager.onStop(delivery: .descriptor) { failure in
    print(failure.map { "failed: \($0)" } ?? "ended")
    ended.store(true, ordering: .relaxed)
}
try manager.start()
var descriptor = pollfd(fd: manager.pollDescriptor, events: Int16(POLLIN), revents: 0)
while !ended.load(ordering: .relaxed) {
    // Bounded, so that a backend that never ends cannot hang the test that runs this.
    guard poll(&descriptor, 1, 30_000) > 0 else {
        print("no event in 30 s")
        exit(1)
    }
    manager.dispatchPending()
}
withExtendedLifetime((events, stop)) {}
