import KeyboardBackendInterface

/// The window sway's IPC last said has the focus: its app id (bounded like every app id) and pid.
struct SwayFocus: Sendable, Hashable {
    /// The view's `app_id`; nil for an X11 view, or one too long to compare.
    var appID: String?
    /// The view's process.
    var pid: Int32?
}

/// What the compositor says has the focus when a keyboard shows, by which any app is judged
/// (``AppIdentity/isLocal(given:)``): the activated toplevels (wlr-foreign-toplevel-management)
/// with their app ids, and, where sway's IPC runs, the focused view's pid. Pure.
///
/// Keyboards on wlroots compositors are layer surfaces, which never become toplevels: showing one
/// leaves the focus where it was, so the activated toplevel at show time is the one typed into.
enum ShowOwnership {
    /// What has the focus, as far as this compositor tells: the activated toplevels' app ids,
    /// and, where sway's IPC runs, the focused view's pid (its app id must be among the activated
    /// ones: the two come on different connections, and one may lag the other). Nil when nothing
    /// can be told: no foreign-toplevel manager (`activation` nil) or a focus not known yet.
    /// No toplevel activated is a focus with nothing in it.
    ///
    /// `swayIPC` says whether sway's IPC runs, `swayFocus` what it last said has the focus.
    static func focus(
        activation: ForeignToplevels.Activation?, swayIPC: Bool, swayFocus: SwayFocus?
    ) -> FocusedTopLevel? {
        guard let activation else { return nil }
        switch activation {
        case .unknown:
            return nil
        case .noneActivated:
            return FocusedTopLevel(knows: swayIPC ? [.appIDs, .processes] : [.appIDs])
        case .toplevels(let appIDs):
            let known = appIDs.compactMap { $0 }
            if swayIPC, let focus = swayFocus, let focusedID = focus.appID, let pid = focus.pid,
                appIDs.contains(focusedID)
            {
                return FocusedTopLevel(processIDs: [pid], appIDs: known, knows: [.appIDs, .processes])
            }
            return FocusedTopLevel(appIDs: known, knows: [.appIDs])
        }
    }
}

/// The verdict given to each keyboard when it showed, and the focus it was judged by: `isLocal`
/// is judged once per show, by the focus then, as on X11 (a frame change while shown keeps it).
struct LocalVerdicts {
    private var verdicts: [String: (isLocal: Bool?, focus: FocusedTopLevel?)] = [:]

    /// `observation` with its `isLocal` and `focus`: judged now (`focus` read, `app` compared
    /// with it) when the keyboard shows, the show's while it stays up and on its hide.
    mutating func stamp(
        _ observation: KeyboardObservation, app: () -> AppIdentity, focus: () -> FocusedTopLevel?
    ) -> KeyboardObservation {
        var stamped = observation
        let id = observation.keyboard.id
        if observation.isShown {
            if let verdict = verdicts[id] {
                stamped.isLocal = verdict.isLocal
                stamped.focus = verdict.focus
            } else {
                let seen = focus()
                let verdict = (isLocal: app().isLocal(given: seen), focus: seen)
                verdicts[id] = verdict
                stamped.isLocal = verdict.isLocal
                stamped.focus = verdict.focus
            }
        } else if let verdict = verdicts.removeValue(forKey: id) {
            stamped.isLocal = verdict.isLocal
            stamped.focus = verdict.focus
        } else {
            stamped.isLocal = nil
        }
        return stamped
    }
}
