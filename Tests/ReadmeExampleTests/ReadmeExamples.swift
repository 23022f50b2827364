import Dispatch
import Foundation
import Glibc
import KeyboardAdapter
import KeyboardAdapterTesting
import Observation
import Synchronization
import Testing

// Every Swift example of the README and of the documents under docs/, in the surroundings a real
// app gives it: a main-actor UI object, a delegate class, a `for await` loop, an app with its own
// poll() loop, an @Observable model. This file is compiled in Swift 6 mode with warnings as errors
// like the rest of the package; `RepositoryTests` checks that each block stands here word for word.

/// A stand-in for a UI toolkit's input bar: main-actor isolated, as every UI object is.
@MainActor final class InputBar {
    var bottomInset = 0
    func moveUp(by height: Int, over duration: Double) {}
    func moveDown(over duration: Double) {}
    func place(above keyboard: Rect) {}
}

/// A stand-in for a window.
@MainActor final class AppWindow {
    var frame = Rect(x: 0, y: 0, width: 1280, height: 800)
}

@MainActor func gettingStarted() throws -> KeyboardManager {
    let manager = try KeyboardManager.forThisSession()  // x11, wayland, kwin or gnome, from the session
    try manager.start()
    return manager
}

@MainActor func mainActorClosures(manager: KeyboardManager, bar: InputBar) -> [KeyboardSubscription] {
    let token =
        manager
        .on(.willShow) { update in bar.moveUp(by: update.endFrame.height, over: update.animationDuration) }
        .on(.willHide) { update in bar.moveDown(over: update.animationDuration) }
    let all = manager.onEvent { update in print(update.event, update.endFrame) }
    // Frame by frame, in lock-step with a sliding keyboard:
    let follow = manager.onProgress { progress in bar.place(above: progress.frame) }
    return [token, all, follow]
}

/// An app with a loop of its own (GTK, SDL, Xlib, plain poll()): the closures hand updates to it.
final class Inbox: Sendable {
    private let updates = Mutex<[KeyboardUpdate]>([])
    func post(_ update: KeyboardUpdate) { updates.withLock { $0.append(update) } }
}

func ownLoop(manager: KeyboardManager, inbox: Inbox) -> KeyboardSubscription {
    let token = manager.onEvent(delivery: .descriptor) { update in inbox.post(update) }
    // In the app's own loop, beside its other descriptors:
    var fds = [pollfd(fd: manager.pollDescriptor, events: Int16(POLLIN), revents: 0)]
    if poll(&fds, 1, -1) > 0 {
        manager.dispatchPending()  // runs the held closures here, on this thread
    }
    return token
}

/// Where a line goes in the other delivery examples.
final class Log: Sendable {
    func write(_ update: KeyboardUpdate) {}
}

func otherDeliveries(manager: KeyboardManager, log: Log, myQueue: DispatchQueue) -> [KeyboardSubscription] {
    let lines = manager.onEvent(delivery: .immediate) { update in log.write(update) }  // on the loop's thread
    let queued = manager.onEvent(delivery: .queue(myQueue)) { update in log.write(update) }  // on myQueue
    return [lines, queued]
}

@MainActor final class ChatScreen: KeyboardManagerDelegate {
    func keyboardManager(_ manager: KeyboardManager, didShow update: KeyboardUpdate) {
        scrollToCaret(above: update.endFrame)
    }
}

extension ChatScreen {
    func scrollToCaret(above frame: Rect) {}
}

@MainActor func delegate(manager: KeyboardManager, chatScreen: ChatScreen) {
    manager.delegate = chatScreen
}

@MainActor func asyncSequence(manager: KeyboardManager, inputBar: InputBar, window: AppWindow) async {
    for await snapshot in manager.updates() {
        inputBar.bottomInset = snapshot.isVisible ? manager.insets(forWindow: window.frame).bottom : 0
    }
}

@MainActor func geometry(manager: KeyboardManager, update: KeyboardUpdate, window: AppWindow) {
    let inView = WindowGeometry.keyboardFrame(update.endFrame, inWindow: window.frame)
    let covered = WindowGeometry.coveredRect(by: update.endFrame, inWindow: window.frame)  // nil: not covered
    let insets = manager.insets(forWindow: window.frame)  // every visible keyboard and panel; zero on another output
    _ = (inView, covered, insets)
}

/// What a SwiftUI-style toolkit on Linux observes: the keyboard as an @Observable model.
@Observable @MainActor final class KeyboardModel {
    var keyboards: [KeyboardState] = []
    var bottomInset = 0
    @ObservationIgnored private var token: KeyboardSubscription?

    init(manager: KeyboardManager, window: AppWindow) {
        keyboards = manager.visibleKeyboards
        token = manager.onEvent { [weak self] _ in
            self?.keyboards = manager.visibleKeyboards
            self?.bottomInset = manager.insets(forWindow: window.frame).bottom
        }
    }
}

@Suite("README examples")
struct ReadmeExampleTests {
    @Test("the examples compile and run against an in-memory backend")
    @MainActor
    func examplesRun() async throws {
        let backend = InMemoryBackend()
        let manager = KeyboardManager(backend: backend, configuration: .init(settleInterval: 0))
        try manager.start()
        let bar = InputBar()
        let window = AppWindow()
        let tokens = mainActorClosures(manager: manager, bar: bar)
        let model = KeyboardModel(manager: manager, window: window)
        let inbox = Inbox()
        let held = manager.onEvent(delivery: .descriptor) { update in inbox.post(update) }
        backend.observe(
            KeyboardIdentity(id: "osk", name: "osk"), frame: Rect(x: 0, y: 560, width: 1280, height: 240),
            output: Output(name: "screen", frame: window.frame))
        let own = ownLoop(manager: manager, inbox: inbox)
        var snapshots = manager.updates().makeAsyncIterator()
        #expect(await snapshots.next()?.isVisible == true)
        let deadline = Date().addingTimeInterval(5)
        while model.bottomInset != 240, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(model.bottomInset == 240)
        #expect(model.keyboards.count == 1)
        manager.stop()
        withExtendedLifetime((tokens, held, own)) {}
    }
}

func showingTheKeyboard(manager: KeyboardManager) {
    manager.showKeyboard { result in
        if case .failure(let error) = result { print("cannot show the keyboard: \(error)") }
    }
}

/// A stand-in for a chat screen's input bar that a drag pulls down (and the list with it).
@MainActor final class ChatBar {
    var frame = Rect(x: 0, y: 352, width: 800, height: 48)
    var fieldFrame = Rect(x: 12, y: 360, width: 776, height: 32)
    func pull(down offset: Double) {}
    func springBack(from offset: Double, over duration: Double) {}
    func followHide(from offset: Double) {}
    func hideFailed() {}
}

/// A stand-in for a toolkit's pointer event, in the window's coordinates.
struct PointerEvent {
    var x = 400.0, y = 500.0, time = 0.0
}

@MainActor func dismissing(manager: KeyboardManager, bar: ChatBar, window: AppWindow, event: PointerEvent) {
    // Where the keyboard cannot be hidden on request, leave the gesture off: the answer says why.
    guard manager.dismissalAvailability.isAvailable else { return print(manager.dismissalAvailability) }
    let dismissal = KeyboardDismissal(manager: manager, configuration: .init(dismissesOnTap: true)) { result in
        if case .failure = result { Task { @MainActor in bar.hideFailed() } }  // then dismissal.hideFailed()
    }
    // Whenever the bar or the keyboard moves: the bar at rest, its field, the keyboard.
    _ = dismissal.update(
        KeyboardDismissalLayout(
            bar: bar.frame, focusedField: bar.fieldFrame, globalKeyboard: manager.currentFrame, window: window.frame))
    // The app's own pointer events, with their times (pointerDown, pointerMoved, pointerUp):
    switch dismissal.pointerMoved(x: event.x, y: event.y, time: event.time) {
    case .follow(let position): bar.pull(down: position.offset)  // and the content with it
    case .restore(let from, let duration): bar.springBack(from: from.offset, over: duration)
    case .dismiss(let position, _): bar.pull(down: position.offset)  // held there until willHide
    case .keyboardHid(let from): bar.followHide(from: from.offset)  // down with the keyboard's hide
    case .none: break
    }
}

func namingTheApp(manager: KeyboardManager) {
    manager.setAppIdentity(AppIdentity(processIDs: [getpid()], appIDs: ["org.example.Editor"]))
}
