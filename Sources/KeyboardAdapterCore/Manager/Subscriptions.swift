import Dispatch
import Synchronization

/// Receives keyboard events, MSSKeyboardManager style. Every method has a default that does
/// nothing, so a delegate implements only what it needs. The manager holds its delegate weakly:
/// a released delegate simply gets nothing.
///
/// The protocol is isolated to the main actor: delegate methods are always called there (the
/// main thread must run the main queue), whatever delivery closures use, because a delegate is
/// almost always a piece of user interface.
@MainActor
public protocol KeyboardManagerDelegate: AnyObject {
    /// A keyboard starts to appear.
    func keyboardManager(_ manager: KeyboardManager, willShow update: KeyboardUpdate)
    /// A keyboard has appeared and settled.
    func keyboardManager(_ manager: KeyboardManager, didShow update: KeyboardUpdate)
    /// A keyboard starts to disappear.
    func keyboardManager(_ manager: KeyboardManager, willHide update: KeyboardUpdate)
    /// A keyboard has disappeared.
    func keyboardManager(_ manager: KeyboardManager, didHide update: KeyboardUpdate)
    /// A visible keyboard starts to move or resize.
    func keyboardManager(_ manager: KeyboardManager, willChangeFrame update: KeyboardUpdate)
    /// A visible keyboard has settled at a new frame.
    func keyboardManager(_ manager: KeyboardManager, didChangeFrame update: KeyboardUpdate)
    /// The input layout of a visible keyboard changed.
    func keyboardManager(_ manager: KeyboardManager, didChangeLayout state: KeyboardState)
    /// The backend stopped by itself: `failure` says why, or is nil when a recording ended.
    func keyboardManager(_ manager: KeyboardManager, didStopWith failure: BackendFailure?)
    /// An intermediate frame of a show, hide or move under way.
    func keyboardManager(_ manager: KeyboardManager, didProgress progress: KeyboardProgress)
}

extension KeyboardManagerDelegate {
    /// Does nothing.
    public func keyboardManager(_ manager: KeyboardManager, willShow update: KeyboardUpdate) {}
    /// Does nothing.
    public func keyboardManager(_ manager: KeyboardManager, didShow update: KeyboardUpdate) {}
    /// Does nothing.
    public func keyboardManager(_ manager: KeyboardManager, willHide update: KeyboardUpdate) {}
    /// Does nothing.
    public func keyboardManager(_ manager: KeyboardManager, didHide update: KeyboardUpdate) {}
    /// Does nothing.
    public func keyboardManager(_ manager: KeyboardManager, willChangeFrame update: KeyboardUpdate) {}
    /// Does nothing.
    public func keyboardManager(_ manager: KeyboardManager, didChangeFrame update: KeyboardUpdate) {}
    /// Does nothing.
    public func keyboardManager(_ manager: KeyboardManager, didChangeLayout state: KeyboardState) {}
    /// Does nothing.
    public func keyboardManager(_ manager: KeyboardManager, didStopWith failure: BackendFailure?) {}
    /// Does nothing.
    public func keyboardManager(_ manager: KeyboardManager, didProgress progress: KeyboardProgress) {}

    /// Calls the method for the update's event.
    func dispatch(_ update: KeyboardUpdate, from manager: KeyboardManager) {
        switch update.event {
        case .willShow: keyboardManager(manager, willShow: update)
        case .didShow: keyboardManager(manager, didShow: update)
        case .willHide: keyboardManager(manager, willHide: update)
        case .didHide: keyboardManager(manager, didHide: update)
        case .willChangeFrame: keyboardManager(manager, willChangeFrame: update)
        case .didChangeFrame: keyboardManager(manager, didChangeFrame: update)
        }
    }
}

/// A token for closures registered with a manager. Cancelling it, or letting it go (deinit),
/// unsubscribes every closure it holds; cancelling twice, or after the manager is gone, is harmless.
///
/// Chain `on(_:perform:)` to register more closures on the same token, Typist style:
/// ```swift
/// let token = manager.on(.willShow) { moveUp($0) }.on(.willHide) { moveDown($0) }
/// ```
public final class KeyboardSubscription: Sendable, Hashable {
    private let manager: WeakManager
    /// The closures' ids; nil once cancelled, so that a chained `on` after `cancel()` registers
    /// nothing and the token stays inactive.
    private let ids: Mutex<[Int]?>

    init(manager: KeyboardManager, id: Int) {
        self.manager = WeakManager(manager)
        ids = Mutex([id])
    }

    /// Registers one more main-actor closure for `event` on this token; returns the token. Does
    /// nothing once the token is cancelled.
    @discardableResult
    public func on(_ event: KeyboardEvent, perform handler: @escaping @MainActor @Sendable (KeyboardUpdate) -> Void)
        -> KeyboardSubscription
    {
        add(.events(event, .mainActor(handler)))
    }

    /// Registers one more closure for `event`, called as `delivery` says; returns the token. Does
    /// nothing once the token is cancelled.
    @discardableResult
    public func on(
        _ event: KeyboardEvent, delivery: KeyboardDelivery,
        perform handler: @escaping @Sendable (KeyboardUpdate) -> Void
    ) -> KeyboardSubscription {
        add(.events(event, .delivered(delivery, handler)))
    }

    private func add(_ subscriber: Subscriber) -> KeyboardSubscription {
        guard let manager = manager.value else { return self }
        // Registered under the token's lock, so that a concurrent cancel() either sees the new
        // closure and removes it, or comes first and keeps it from being registered at all.
        ids.withLock { ids in
            guard ids != nil else { return }
            ids!.append(manager.addSubscriber(subscriber))
        }
        return self
    }

    /// Unsubscribes every closure of this token. After it returns, none of them is called again,
    /// except a call already under way at that moment (cancelling from inside a callback, or from
    /// the thread the callbacks run on, is exact).
    public func cancel() {
        let taken = ids.withLock { ids -> [Int] in
            defer { ids = nil }
            return ids ?? []
        }
        manager.value?.removeSubscribers(taken)
    }

    /// True until `cancel()` is called.
    public var isActive: Bool { ids.withLock { $0 != nil } }

    /// Keeps the token alive in a set, Combine style.
    public func store(in set: inout Set<KeyboardSubscription>) { set.insert(self) }

    deinit { cancel() }

    /// Identity equality.
    public static func == (a: KeyboardSubscription, b: KeyboardSubscription) -> Bool { a === b }
    /// Identity hash.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// The keyboards visible at one moment, and what just changed. `KeyboardManager.updates()` yields
/// the current snapshot first, then one per event.
public struct KeyboardSnapshot: Sendable, Hashable {
    /// The visible keyboards, ordered by id.
    public var keyboards: [KeyboardState]
    /// The event that led to this snapshot; nil for the first snapshot and for layout changes.
    public var update: KeyboardUpdate?
    /// The keyboard whose layout changed, for a layout-change snapshot.
    public var layoutChange: KeyboardState?

    /// Creates a snapshot.
    public init(keyboards: [KeyboardState], update: KeyboardUpdate? = nil, layoutChange: KeyboardState? = nil) {
        self.keyboards = keyboards
        self.update = update
        self.layoutChange = layoutChange
    }

    /// True while any keyboard is visible.
    public var isVisible: Bool { !keyboards.isEmpty }
}
