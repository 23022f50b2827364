import Dispatch
import Foundation
@_spi(BackendRun) import KeyboardBackendInterface
import Synchronization
import Testing

@testable import KeyboardAdapterCore

/// Any sequence of public calls, from any callback or deinit, is safe: nothing of the app's is
/// released, finished or called while the manager holds its lock. A failure here is a crash of
/// the whole test process ("Recursive call to lock Mutex") or a hang, so every case also checks
/// that the manager still works afterwards.
@Suite("Manager: re-entrancy")
struct ReentrancyTests {
    @Test(
        "every public call from inside every delivery's callback, with every kind of subscriber alive",
        arguments: DeliveryMode.allCases, ManagerCall.allCases)
    func callFromCallback(mode: DeliveryMode, call: ManagerCall) async throws {
        var rig = try ReentrancyRig()
        rig.subscribeBystanders()
        let made = Once()
        let manager = rig.manager
        let jar = rig.jar
        rig.subscribe(mode) { own in made { call.perform(on: manager, jar: jar, own: own) } }
        if mode == .delegate { await MainActor.run {} }
        await rig.showSlideAndHide()
        #expect(made.hasFired, "the \(mode) subscriber was never called")
        let afterwards = try await rig.stillWorks()
        #expect(afterwards == [.willShow, .didShow, .willHide, .didHide], "\(afterwards)")
        await rig.end()
    }

    @Test(
        "every public call from a deinit that runs while a token is cancelled, the manager cleared or stopped",
        arguments: [Trigger.cancel, .clear, .stop, .backendFailure], ManagerCall.allCases)
    func callFromDeinit(trigger: Trigger, call: ManagerCall) async throws {
        let rig = try ReentrancyRig()
        rig.subscribeBystanders()
        let manager = rig.manager
        let jar = rig.jar
        let deinitRan = Once()
        // A view model owns a token of its own; its only strong reference is captured by another
        // subscriber (a closure, or the task reading a stream), the ordinary shape of UI code.
        var model: ViewModel? = ViewModel(manager: manager) {
            deinitRan { call.perform(on: manager, jar: jar, own: nil) }
        }
        var outer: KeyboardSubscription?
        var reader: Task<Void, Never>?
        switch trigger {
        case .cancel, .clear:
            outer = manager.onEvent(delivery: .immediate) { [model] _ in _ = model }
        case .stop, .backendFailure:
            let stream = manager.updates()
            reader = Task { [model] in
                for await _ in stream {}
                _ = model
            }
        }
        model = nil
        switch trigger {
        case .cancel: outer?.cancel()
        case .clear: manager.clear()
        case .stop: manager.stop()
        case .backendFailure: rig.backend.fail("the display went away")
        }
        await reader?.value
        let end = MonotonicClock.now() + 5
        while !deinitRan.hasFired && MonotonicClock.now() < end { try await Task.sleep(for: .milliseconds(2)) }
        #expect(deinitRan.hasFired)
        let afterwards = try await rig.stillWorks()
        #expect(afterwards == [.willShow, .didShow, .willHide, .didHide], "\(afterwards)")
        await rig.end()
    }

    enum Trigger: String, Sendable, CustomStringConvertible {
        case cancel, clear, stop, backendFailure
        var description: String { rawValue }
    }

    @Test("stopping with a progress stream alive, after one frame was read")
    func stopWithProgressStream() async throws {
        let rig = try ReentrancyRig()
        let stream = rig.manager.progressUpdates()
        let firstFrame = Task { () -> KeyboardProgress? in
            for await progress in stream { return progress }
            return nil
        }
        await rig.showSlideAndHide()
        #expect(await firstFrame.value != nil)
        rig.manager.stop()
        #expect(!rig.manager.isRunning)
        await rig.end()
    }

    @Test("cancelling or clearing a subscription whose closure holds the last reference to an object owning a token")
    func releaseOwnerOfToken() async throws {
        let rig = try ReentrancyRig()
        for clear in [false, true] {
            let gone = Once()
            var model: ViewModel? = ViewModel(manager: rig.manager) { gone {} }
            let outer = rig.manager.onEvent(delivery: .immediate) { [model] _ in _ = model }
            model = nil
            if clear { rig.manager.clear() } else { outer.cancel() }
            #expect(gone.hasFired)
            #expect(rig.manager.subscriberCount == 0)
        }
        await rig.end()
    }

    @Test("stop with an updates stream alive; stop() from an immediate callback; a token released in its own callback")
    func patternsThatSurvive() async throws {
        var rig = try ReentrancyRig()
        let stream = rig.manager.updates()
        let manager = rig.manager
        let selfReleasing = TokenBox()
        selfReleasing.token = rig.manager.onEvent(delivery: .immediate) { _ in selfReleasing.token = nil }
        rig.subscribe(.immediate) { _ in manager.stop() }
        await rig.showSlideAndHide()
        #expect(!rig.manager.isRunning)
        #expect(selfReleasing.token == nil)
        var snapshots = 0
        for await _ in stream { snapshots += 1 }
        #expect(snapshots >= 1)
        await rig.end()
    }
}

/// An app object that owns a token and calls the manager when it goes.
final class ViewModel: Sendable {
    let token: KeyboardSubscription
    let onDeinit: @Sendable () -> Void

    init(manager: KeyboardManager, onDeinit: @escaping @Sendable () -> Void) {
        token = manager.onEvent(delivery: .immediate) { _ in }
        self.onDeinit = onDeinit
    }

    deinit { onDeinit() }
}
