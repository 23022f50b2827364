import CX11
import KeyboardBackendInterface

/// The window model on an Xlib connection: what the backend holds. It decodes each `XEvent` for
/// the model, which asks the server through the connection itself.
final class WindowTracker {
    private let display: XDisplay
    private let model: WindowModel<XDisplay>

    /// A tracker of `display`'s screen that recognises keyboards by `rules`, judges them local
    /// for `appIdentity` and hands every observation to `deliver`.
    init(
        display: XDisplay, rules: KeyboardRules, appIdentity: @escaping () -> AppIdentity = { AppIdentity() },
        deliver: @escaping (KeyboardObservation) -> Void
    ) {
        self.display = display
        model = WindowModel(server: display, rules: rules, appIdentity: appIdentity, deliver: deliver)
    }

    /// Selects events on the root and on every existing window, then reports the keyboards that
    /// are already visible.
    func start() { model.start() }

    /// Handles one X event.
    func handle(_ event: inout XEvent) {
        if let decoded = X11WindowEvent(&event, on: display) { model.handle(decoded) }
    }

    /// The connection is gone: every keyboard that was shown is hidden.
    func hideAll() { model.hideAll() }

    /// Delivers what changed since the last call.
    func flushObservations() { model.flushObservations() }

    /// Whether `flushObservations()` has anything to look at.
    var hasObservationsToFlush: Bool { model.hasObservationsToFlush }
}

extension XDisplay: WindowServer {
    /// Asks for the root's structure and its children's (creation, reparenting, frames moving),
    /// its properties (the active window, the layout names) and RandR's changes.
    func selectRootEvents() {
        selectInput(root, SubstructureNotifyMask | StructureNotifyMask | PropertyChangeMask)
        selectMonitorChanges()
    }

    /// Asks for a followed window's own geometry and mapping, and its properties.
    func selectWindowEvents(_ window: WindowID) {
        selectInput(window, StructureNotifyMask | PropertyChangeMask)
    }

    /// Interns the atoms of every start in one round trip.
    func prepareAtoms() { internAtoms(Self.startAtoms) }

    /// Follows the core keyboard's layout through XKB on this connection.
    func followInputLayout() -> (any InputLayoutSource)? { XkbLayout(display: self) }
}
