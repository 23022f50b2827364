import Glibc

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where a backend delivers what it sees. The manager provides it. Calls made on the run loop's
/// thread are processed at once; calls from other threads are handed to the loop, in order.
public protocol ObservationSink: Sendable {
    /// One observation of one keyboard.
    func deliver(_ observation: KeyboardObservation)
    /// The backend stopped by itself: the connection broke (every visible keyboard is then hidden
    /// and the failure is reported), or a recording ended (`failure` nil).
    func finish(failure: BackendFailure?)
}

/// A backend: what it observes (``KeyboardObserving``), what it controls (``KeyboardHiding``) and
/// what it tells about itself (``BackendDiagnosing``). One per display server, plus replay. It
/// opens one connection per run on the ``KeyboardRunLoop`` its manager gives it, adds it as a
/// ``LoopSource`` and hands observations to the sink from that loop's thread; the manager owns the
/// run's life (open, the app's identity, close). It never builds events.
///
/// Modelled on swift-log's `LogHandler`: small, so that backends are plugins, and so that a
/// recording can stand in for a display server in tests. Only ``KeyboardObserving`` has
/// requirements without a default.
public typealias KeyboardBackend = KeyboardObserving & KeyboardHiding & BackendDiagnosing

/// What a backend observes: it opens a run (a ``BackendConnection``) on a run loop, which hands
/// observations to the sink; the run's owner forwards the app's identity to it and closes it.
public protocol KeyboardObserving: AnyObject, Sendable {
    /// The registry name, such as `x11` or `wayland`.
    var name: String { get }
    /// What the backend can tell.
    var capabilities: BackendCapabilities { get }
    /// Whether the backend can run in this session, and why not; may connect briefly to check.
    func availability() -> BackendAvailability
    /// Opens one run, on the loop's thread of `context`: connects, adds its sources to the loop,
    /// starts its ``services`` there, and delivers the keyboards already visible before it
    /// returns, so that a caller can ask for the current state right after. `app` is the app whose
    /// keyboards count as local until the run hears otherwise. Throws when it cannot open. The
    /// caller owns the run: it forwards the app's changes and closes it, on the loop's thread;
    /// each call opens a run of its own.
    @_spi(BackendRun) func open(in context: LoopContext, sink: any ObservationSink, app: AppIdentity) throws
        -> any BackendConnection
    /// The keyboards' own services the backend joins with its geometry, and that the manager asks
    /// to show and hide (none by default). A run starts them on its loop; its owner stops them
    /// once it has closed the run.
    var services: [any KeyboardService] { get }
    /// The space reserved along output edges now, as measured (none by default: only backends
    /// that see reserved space have any). The manager leaves out what its visible keyboards fill.
    /// Any thread.
    var reservedStrips: [ReservedStrip] { get }
}

/// What a backend controls: hiding a keyboard the display server's own way. Show and hide through
/// a keyboard's service are the manager's to route (`KeyboardManager.hideKeyboard(id:completion:)`),
/// so a backend offers only this.
public protocol KeyboardHiding {
    /// Asks a visible keyboard to hide the display server's own way, for keyboards whose service
    /// does not run (X11: the window manager iconifies its window); the hide is then observed
    /// like any other. Throws when the backend cannot. Any thread.
    func requestHide(of keyboard: KeyboardIdentity) throws(KeyboardControlError)
    /// Why the display server cannot `show` (or `hide`) a keyboard by itself, for people: the
    /// reason given when no keyboard service runs.
    func requestLimitation(_ what: String) -> String
    /// Whether ``requestHide(of:)`` hides a keyboard whose service does not run (X11: the window
    /// manager iconifies it), so that an app knows beforehand whether a dismissal gesture can work.
    var hidesWithoutService: Bool { get }
}

/// What a backend tells about itself, for `kbwatch --doctor`.
public protocol BackendDiagnosing {
    /// What the backend sees in this session, line by line: the display server, the protocols or
    /// atoms found, the keyboards running, and what it cannot see.
    func diagnose() -> [String]
}

extension KeyboardObserving {
    /// No keyboard services by default.
    public var services: [any KeyboardService] { [] }
    /// No reserved space seen by default.
    public var reservedStrips: [ReservedStrip] { [] }
}

extension KeyboardHiding where Self: KeyboardObserving {
    /// By default a backend cannot hide keyboards.
    public func requestHide(of keyboard: KeyboardIdentity) throws(KeyboardControlError) {
        throw .unsupported(requestLimitation("hide"))
    }
    /// By default: the backend cannot.
    public func requestLimitation(_ what: String) -> String { "the \(name) backend cannot \(what) keyboards" }
    /// By default a backend that hides keyboards and has no services does it itself; one with
    /// services (Wayland, KWin) hides through them.
    public var hidesWithoutService: Bool { capabilities.contains(.hidesKeyboards) && services.isEmpty }
}

extension BackendDiagnosing where Self: KeyboardObserving {
    /// By default a backend has nothing to add beyond its availability.
    public func diagnose() -> [String] { [availability().explanation] }
}
