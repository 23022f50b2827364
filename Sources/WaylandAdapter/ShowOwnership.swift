import KeyboardAdapterCore

/// The window sway's IPC last said has the focus: its app id (bounded like every app id) and pid.
struct SwayFocus: Sendable, Hashable {
    /// The view's `app_id`; nil for an X11 view, or one too long to compare.
    var appID: String?
    /// The view's process.
    var pid: Int32?
}

/// Whether a keyboard that shows now came up for the app, from what the compositor says has the
/// focus: the activated toplevels (wlr-foreign-toplevel-management) with their app ids, and,
/// where sway's IPC runs, the focused view's pid. Pure.
///
/// Keyboards on wlroots compositors are layer surfaces, which never become toplevels: showing one
/// leaves the focus where it was, so the activated toplevel at show time is the one typed into.
enum ShowOwnership {
    /// True when an activated toplevel has one of the app's ids, or (through sway's IPC) one of its
    /// pids; false when the focus is known to be elsewhere; nil when nothing can be compared:
    /// no foreign-toplevel manager (`activation` nil), an identity with nothing this compositor
    /// reports (no app id, and no pid or no IPC to give one), or a focus that is not known.
    ///
    /// `swayIPC` says whether sway's IPC runs, `swayFocus` what it last said has the focus. Its pid
    /// counts only for an activated toplevel with the same app id: the two come on different
    /// connections, and one may lag the other.
    static func isLocal(
        activation: ForeignToplevels.Activation?, swayIPC: Bool, swayFocus: SwayFocus?, app: AppIdentity
    ) -> Bool? {
        guard let activation else { return nil }
        let comparesPIDs = swayIPC && !app.processIDs.isEmpty
        let comparesAppIDs = !app.appIDs.isEmpty
        guard comparesPIDs || comparesAppIDs else { return nil }
        switch activation {
        case .unknown:
            return nil
        case .noneActivated:
            return false
        case .toplevels(let appIDs):
            if appIDs.contains(where: { $0.map(app.includes(appID:)) ?? false }) { return true }
            var pidKnown = false
            if comparesPIDs, let focus = swayFocus, let focusedID = focus.appID, let pid = focus.pid,
                appIDs.contains(focusedID)
            {
                if app.processIDs.contains(pid) { return true }
                pidKnown = true
            }
            return comparesAppIDs || pidKnown ? false : nil
        }
    }
}

/// The verdict given to each keyboard when it showed, kept until it hides: `isLocal` is judged
/// once per show, by the focus then, as on X11 (a frame change while shown keeps it).
struct LocalVerdicts {
    private var verdicts: [String: Bool?] = [:]

    /// `observation` with its `isLocal`: judged now (by `judge`) when the keyboard shows, the
    /// show's verdict while it stays up and on its hide.
    mutating func stamp(_ observation: KeyboardObservation, judge: () -> Bool?) -> KeyboardObservation {
        var stamped = observation
        let id = observation.keyboard.id
        if observation.isShown {
            if let verdict = verdicts[id] {
                stamped.isLocal = verdict
            } else {
                let verdict = judge()
                verdicts[id] = .some(verdict)
                stamped.isLocal = verdict
            }
        } else {
            stamped.isLocal = verdicts.removeValue(forKey: id) ?? nil
        }
        return stamped
    }
}
