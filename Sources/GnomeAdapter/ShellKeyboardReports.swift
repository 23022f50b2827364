import KeyboardBackendInterface

/// Turns what the package's GNOME Shell extension reports into observations. Pure: it holds
/// whether the keyboard is up, the verdict on whose it is, and what was delivered last.
///
/// The extension reports the keyboard actor's rectangle at every step of its slide, the shell's
/// own numbers (geometry `.reported`), and its monitor whole. The keyboard always docks at the
/// bottom of its monitor and slides in and out through that edge; the rectangle it waits in below
/// the monitor while hidden is off screen, so the tracker keeps it only as the start of the next
/// slide. Each slide's target, which the shell knows when it starts, is the observations'
/// destination: a show begins while the keyboard is still below the monitor, a hide while it is
/// still in place, and neither settles before it arrives. `isLocal` is judged once per show, by
/// the window that had the focus when it began.
struct ShellKeyboardReports: Sendable {
    /// The keyboard's identity: one id for GNOME Shell's keyboard, whichever actor draws it.
    let identity: KeyboardIdentity
    private var isVisible = false
    private var verdict: (isLocal: Bool?, focus: FocusedTopLevel?)?
    /// What was delivered last, to deliver only changes.
    private var delivered: KeyboardObservation?

    init(identity: KeyboardIdentity) { self.identity = identity }

    /// What the service says now; `app` is asked when the keyboard starts to show.
    mutating func serviceChanged(_ state: KeyboardServiceState, time: Double, app: () -> AppIdentity)
        -> [KeyboardObservation]
    {
        let report = state.isRunning ? state.companion : nil
        let visible = report != nil && state.isVisible == true
        if visible && !isVisible {
            let focus = report?.focusedTopLevel
            verdict = (app().isLocal(given: focus), focus)
        }
        isVisible = visible
        let frame = report?.panel?.frame
        let next = KeyboardObservation(
            time: time, keyboard: identity, frame: frame, isDocked: frame.map { _ in true },
            dockedEdge: frame.map { _ in .bottom }, output: report?.output ?? delivered?.output, geometry: .reported,
            isLocal: verdict?.isLocal ?? nil, focus: verdict?.focus ?? nil,
            destination: frame == nil ? nil : report?.panel?.destination)
        if !visible { verdict = nil }
        var previous = delivered
        previous?.time = time
        // Nothing but the time changed, or nothing was ever seen.
        guard previous != next, delivered != nil || frame != nil else { return [] }
        delivered = next
        return [next]
    }
}
