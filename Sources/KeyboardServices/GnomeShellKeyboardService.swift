@_spi(BackendRun) import KeyboardBackendInterface
import Synchronization
import SystemdBus

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// GNOME Shell's own on-screen keyboard, heard through the package's GNOME Shell extension
/// (Companions/gnome-shell) on the session bus: `org.keyboardadapter.GnomeShell1` at
/// `/org/keyboardadapter/GnomeShell` under `org.gnome.Shell`. The shell draws its keyboard
/// itself and tells no other program where it is; the extension reports its rectangle at every
/// step of its slide (`KeyboardServiceState.companion`), whether it is up, the focused window
/// when it changed, and shows and hides it. The state is `running` while the shell owns its name;
/// its companion is nil while the extension does not report (not installed, disabled, another
/// release: `KeyboardServiceState.companionStatus` says which and what fixes it).
public final class GnomeShellKeyboardService: KeyboardService {
    private let environment: [String: String]
    private let watched = WatchedService<GnomeShellWatch>()
    /// The processes whose windows the shell is asked to leave in place, given to each watch.
    private let inPlace = Mutex<[Int32]>([])

    /// A service on the session bus of `environment`.
    public init(environment: [String: String] = ProcessEnvironment.current) {
        self.environment = environment
    }

    /// `gnome-shell`.
    public var name: String { "gnome-shell" }
    /// `GNOME Shell keyboard`.
    public var keyboardName: String { "GNOME Shell keyboard" }
    /// Where the extension answers.
    public var address: String {
        "\(GnomeShellProbe.interface) of org.gnome.Shell at \(GnomeShellProbe.objectPath) on the session bus"
    }
    /// GNOME Shell's keyboard always docks at the bottom of its monitor.
    public var dockedEdge: Edge? { .bottom }
    /// What the extension said last.
    public var state: KeyboardServiceState { watched.state }

    /// Connects on the loop's thread, reads the extension's state, and follows it.
    public func start(in context: LoopContext, onChange: @escaping (KeyboardServiceState) -> Void) {
        let environment = environment
        let pids = inPlace.withLock { $0 }
        watched.start(
            in: context,
            open: { (changed) throws(BusFailure) in
                let watch = try GnomeShellWatch(environment: environment, context: context, changed: changed)
                watch.leaveInPlace(pids)
                return watch
            },
            onChange: onChange)
    }

    /// Disconnects; requests still waiting fail. Idempotent.
    public func stop() { watched.stop() }

    /// Opens or closes the keyboard through the extension (`Show`, `Hide`); `completion` runs on
    /// the loop's thread once the shell replied.
    public func requestVisible(
        _ visible: Bool, completion: @escaping @Sendable (Result<Void, KeyboardControlError>) -> Void
    ) {
        watched.requestVisible(visible, service: name, completion: completion)
    }

    /// Asks the shell, through the extension's `LeaveInPlace`, to move no window of `processIDs`
    /// when its keyboard opens; the extension forgets the request when this service's connection
    /// leaves the bus, and the service gives it again to an extension that starts again.
    public func leaveWindowsInPlace(processIDs: [Int32]) -> Bool {
        let pids = processIDs.filter { $0 > 0 }
        inPlace.withLock { $0 = pids }
        watched.withWatch { $0.leaveInPlace(pids) }
        return true
    }

    /// What the shell and the extension say now, on a short connection.
    public func probe() -> KeyboardServiceState {
        GnomeShellWatch.state(GnomeShellProbe.run(environment: environment, timeout: GnomeShellWatch.startTimeout))
    }
}
