import KeyboardAdapterCore
import Synchronization
import SystemdBus

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A keyboard's own service on the session bus (`DBUS_SESSION_BUS_ADDRESS`, never another bus),
/// through sd-bus: ``onboard(environment:)`` and ``squeekboard(environment:)``. Every call it makes
/// has D-Bus auto-start switched off, so it never starts a keyboard by talking to it; while
/// nothing happens it uses no CPU (its connection waits in the run loop's `poll()`).
public final class DBusKeyboardService: KeyboardService {
    let interface: ServiceInterface
    private let environment: [String: String]
    private let shared = Mutex(Shared())

    private struct Shared: Sendable {
        var state = KeyboardServiceState(status: .unknown)
        /// The keyboard the bus name's owner is, read once per owner.
        var owner: (pid: Int32, keyboardName: String)?
        var slot = WatchSlot<ServiceWatch>()
    }

    init(interface: ServiceInterface, environment: [String: String]) {
        self.interface = interface
        self.environment = environment
    }

    /// The service's name, such as `onboard`.
    public var name: String { interface.name }
    /// The name geometry gives its keyboards: on `sm.puri.OSK0` the program's that owns the bus name
    /// (squeekboard, phosh-osk-stub, phosh-osk-stevia), else the interface's own.
    public var keyboardName: String { shared.withLock { $0.owner?.keyboardName } ?? interface.keyboardName }
    /// `org.onboard.Onboard on the session bus`.
    public var address: String { "\(interface.busName) on the session bus" }
    /// The edge the keyboard always docks at (squeekboard: the bottom), nil for onboard.
    public var dockedEdge: Edge? { interface.dockedEdge }
    /// What the service said last.
    public var state: KeyboardServiceState { shared.withLock { $0.state } }

    /// Connects to the session bus on the loop's thread, asks the keyboard's state, and follows it.
    /// Without a usable bus the state says why, and nothing is added to the loop.
    public func start(in context: LoopContext, onChange: @escaping (KeyboardServiceState) -> Void) {
        guard shared.withLock({ !$0.slot.isHolding }) else { return }
        let record: (KeyboardServiceState) -> Void = { [weak self] state in
            self?.remember(state)
            onChange(state)
        }
        do {
            let watch = try ServiceWatch(
                interface: interface, environment: environment, context: context, changed: record)
            shared.withLock { shared in
                shared.slot.hold(watch, in: context)
            }
            remember(watch.current)
        } catch {
            remember(KeyboardServiceState(status: .busUnavailable(ServiceProbe.noBusReason(error))))
        }
    }

    /// Keeps `state`, and the name of its owner's keyboard: the owner's executable name is read
    /// when its pid is first known, before anyone is told of the state.
    private func remember(_ state: KeyboardServiceState) {
        let known = shared.withLock { $0.owner }
        let owner =
            known?.pid == state.pid
            ? known : state.pid.map { (pid: $0, keyboardName: interface.keyboardName(ownedBy: $0)) }
        shared.withLock { shared in
            shared.state = state
            shared.owner = owner
        }
    }

    /// Disconnects; requests still waiting fail. Idempotent.
    public func stop() {
        shared.withLock { $0.slot.take() }?.value.close()
    }

    /// Asks the keyboard to show or hide through its own method; `completion` runs on the loop's
    /// thread once the keyboard replied (or the request failed).
    public func requestVisible(
        _ visible: Bool, completion: @escaping @Sendable (Result<Void, KeyboardControlError>) -> Void
    ) {
        let (slot, state) = shared.withLock { ($0.slot, $0.state) }
        slot.request(visible: visible, service: name, state: state, completion: completion)
    }

    /// KWin's virtual keyboard: when KWin shows it (its `mode`, or `enabled` before KWin 6.7).
    public func diagnosis() -> [String] {
        guard interface.asksWillShow, let mode = KWinKeyboardMode.read(environment: environment, timeout: 1) else {
            return []
        }
        return ["KWin shows its keyboard: \(mode)"]
    }

    /// What the service says now, on a short connection; never starts the keyboard. Before a watch
    /// starts, the owner it finds also names ``keyboardName``.
    public func probe() -> KeyboardServiceState {
        let state = ServiceProbe.state(of: interface, environment: environment, timeout: ServiceWatch.startTimeout)
        if shared.withLock({ !$0.slot.isHolding }) { remember(state) }
        return state
    }
}
