import Dispatch
import Glibc
import KeyboardAdapterCore
import KeyboardAdapterTesting
import KeyboardReplay

// kbdelivery: the delivery modes side by side, in the surroundings a real app gives them.
//   kbdelivery descriptor   the main thread runs its own poll() loop and never drains the main
//                           queue; updates come through KeyboardManager.pollDescriptor
//   kbdelivery main-actor   the main thread runs dispatchMain(); @MainActor closures get them
//   kbdelivery undrained    @MainActor closures, but the main thread only sleeps: nothing is
//                           delivered, and the manager says so on standard error
//   kbdelivery undrained-once  the same with one keyboard shown, live, and then silence: the
//                           warning still comes when its delay is up
// Each plays a short recording (a keyboard shown, then hidden), or hands one observation to an
// in-memory backend, and prints one line per update with the thread it arrived on.

let recording = """
    {"t":0,"keyboard":{"id":"demo:1","name":"osk","kind":"keyboard"},"frame":{"x":0,"y":560,"width":1280,"height":240},"geometry":"reported"}
    {"t":0.2,"keyboard":{"id":"demo:1","name":"osk","kind":"keyboard"},"frame":null,"geometry":"reported"}
    """

let mainThread = pthread_self()

/// One line on standard output in one write.
func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

/// Which thread runs this.
func thread() -> String { pthread_equal(pthread_self(), mainThread) != 0 ? "the main thread" : "another thread" }

/// Marks the main queue, which is the main actor's executor (on Linux, dispatchMain() may drain it
/// from a thread other than the process's first one).
let mainQueueKey = DispatchSpecificKey<Bool>()
DispatchQueue.main.setSpecific(key: mainQueueKey, value: true)

/// Whether this runs on the main queue.
func queue() -> String { DispatchQueue.getSpecific(key: mainQueueKey) == true ? "the main queue" : "another queue" }

let mode = CommandLine.arguments.dropFirst().first ?? ""
let manager = KeyboardManager(
    backend: ReplayBackend(source: .text(recording), speed: .factor(1)),
    configuration: .init(undrainedWarningDelay: 0.1))

switch mode {
case "descriptor":
    // A GTK, SDL or Xlib app: its own loop, the manager's descriptor beside its own.
    var ended = false
    let events = manager.onEvent(delivery: .descriptor) { say("\($0.event) on \(thread())") }
    let stop = manager.onStop(delivery: .descriptor) { _ in say("ended on \(thread())") }
    try manager.start()
    var descriptor = pollfd(fd: manager.pollDescriptor, events: Int16(POLLIN), revents: 0)
    // Generous: a loaded machine (a test suite beside it) may take seconds for a 0.2 s recording.
    let deadline = DispatchTime.now() + 60
    while !ended, DispatchTime.now() < deadline {
        _ = poll(&descriptor, 1, 1000)
        let before = manager.isRunning
        manager.dispatchPending()
        ended = !before
    }
    withExtendedLifetime((events, stop)) {}
    exit(ended ? 0 : 1)
case "main-actor":
    // An app whose main thread runs the main queue: main-actor closures, as written in UI code.
    let events = manager.onEvent { update in say("\(update.event) on \(queue()), main actor") }
    let stop = manager.onStop { _ in
        say("ended on \(queue()), main actor")
        exit(0)
    }
    try manager.start()
    withExtendedLifetime((events, stop)) { dispatchMain() }
case "undrained":
    // The mistake: main-actor closures in a program whose main thread never runs the main queue.
    let events = manager.onEvent { update in say("\(update.event) (never printed)") }
    try manager.start()
    sleep(1)
    say("the main thread slept; nothing was delivered")
    withExtendedLifetime(events) {}
    exit(0)
case "undrained-once":
    // One show, and then nothing more happens: no later event could carry the warning.
    let backend = InMemoryBackend()
    let live = KeyboardManager(backend: backend, configuration: .init(undrainedWarningDelay: 0.5))
    let events = live.onEvent { update in say("\(update.event) (never printed)") }
    try live.start()
    backend.observe(KeyboardIdentity(id: "demo:1", name: "osk"), frame: Rect(x: 0, y: 560, width: 1280, height: 240))
    sleep(2)
    say("the main thread slept; nothing was delivered")
    withExtendedLifetime((events, live)) {}
    exit(0)
default:
    say("usage: kbdelivery descriptor|main-actor|undrained|undrained-once")
    exit(2)
}
