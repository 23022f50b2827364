@_spi(BackendRun) import KeyboardBackendInterface
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
    private let watched = WatchedService<ServiceWatch>()
    /// The keyboard the bus name's owner is, read once per owner.
    private let owner = Mutex<(pid: Int32, keyboardName: String)?>(nil)

    init(interface: ServiceInterface, environment: [String: String]) {
        self.interface = interface
        self.environment = environment
    }

    /// The service's name, such as `onboard`.
    public var name: String { interface.name }
    /// The name geometry gives its keyboards: on `sm.puri.OSK0` the program's that owns the bus name
    /// (squeekboard, phosh-osk-stub, phosh-osk-stevia), else the interface's own.
    public var keyboardName: String { owner.withLock { $0?.keyboardName } ?? interface.keyboardName }
    /// `org.onboard.Onboard on the session bus`.
    public var address: String { "\(interface.busName) on the session bus" }
    /// The edge the keyboard always docks at (squeekboard: the bottom), nil for onboard.
    public var dockedEdge: Edge? { interface.dockedEdge }
    /// What the service said last.
    public var state: KeyboardServiceState { watched.state }

    /// Connects to the session bus on the loop's thread, asks the keyboard's state, and follows it.
    /// Without a usable bus the state says why, and nothing is added to the loop.
    public func start(in context: LoopContext, onChange: @escaping (KeyboardServiceState) -> Void) {
        let (interface, environment) = (interface, environment)
        watched.start(
            in: context,
            open: { (changed) throws(BusFailure) in
                try ServiceWatch(interface: interface, environment: environment, context: context, changed: changed)
            },
            note: { [weak self] state in self?.noteOwner(of: state) }, onChange: onChange)
    }

    /// Reads the name of the keyboard that owns the bus name when its pid is first known, before
    /// anyone is told of the state.
    private func noteOwner(of state: KeyboardServiceState) {
        let known = owner.withLock { $0 }
        guard known?.pid != state.pid else { return }
        let next = state.pid.map { (pid: $0, keyboardName: interface.keyboardName(ownedBy: $0)) }
        owner.withLock { $0 = next }
    }

    /// Disconnects; requests still waiting fail. Idempotent.
    public func stop() { watched.stop() }

    /// Asks the keyboard to show or hide through its own method; `completion` runs on the loop's
    /// thread once the keyboard replied (or the request failed).
    public func requestVisible(
        _ visible: Bool, completion: @escaping @Sendable (Result<Void, KeyboardControlError>) -> Void
    ) {
        watched.requestVisible(visible, service: name, completion: completion)
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
        if !watched.isWatching { noteOwner(of: state) }
        return state
    }
}
