import KeyboardAdapterCore

/// Judges whether a keyboard came up for this app. No keyboard links its window to the app it
/// types into, but keyboards leave the focus where it was, so the focused top-level at show time
/// tells: the window manager's `_NET_ACTIVE_WINDOW`, else (no window manager keeps it) the X
/// input focus. That window (its frame or client) is the app's when it is one of the app's windows,
/// has one of its pids (`_NET_WM_PID`) or one of its app ids as `WM_CLASS` class or instance.
/// When the keyboard itself has taken the focus, or the window manager has just
/// cleared it while mapping the keyboard, the window active just before counts.
///
/// The active window is read once at start and then only when the root's property changes.
struct FocusOwnership {
    /// The active window now (0: none), and the last other window that was active.
    private(set) var active: WindowID = 0
    private(set) var previous: WindowID = 0
    /// Whether a window manager keeps `_NET_ACTIVE_WINDOW` on the root.
    private(set) var isKept = false

    /// Reads `_NET_ACTIVE_WINDOW` (at start and on its PropertyNotify).
    mutating func activeWindowChanged(_ server: some WindowServer) {
        let value = server.values(server.root, "_NET_ACTIVE_WINDOW")
        isKept = value != nil
        let now = WindowID(value?.first ?? 0)
        guard now != active else { return }
        if active != 0 { previous = active }
        active = now
    }

    /// Whether the focus belongs to `app` as `keyboard` (inside `keyboardFrame`, if framed)
    /// shows; nil when no app identity is set. `topLevel` and `clientOf` map a window to its
    /// root-level ancestor and a frame to its client.
    func isLocal(
        keyboard: WindowID, keyboardFrame: WindowID?, app: AppIdentity, server: some WindowServer,
        topLevel: (WindowID) -> WindowID?, clientOf: (WindowID) -> WindowID?
    ) -> Bool? {
        guard !app.processIDs.isEmpty || !app.windowIDs.isEmpty || !app.appIDs.isEmpty else { return nil }
        let keyboardWindows = Set([keyboard] + (keyboardFrame.map { [$0] } ?? []))
        var focus = isKept ? active : (server.inputFocus() ?? 0)
        if focus == 0 || keyboardWindows.contains(focus) || keyboardWindows.contains(topLevel(focus) ?? 0) {
            focus = isKept ? previous : 0
        }
        // 0 is None, 1 is PointerRoot: nothing in particular has the focus.
        guard focus > 1, focus != server.root, !keyboardWindows.contains(focus) else { return false }
        var candidates = [focus]
        if let top = topLevel(focus) {
            candidates.append(top)
            if let client = clientOf(top) { candidates.append(client) }
        }
        let windowIDs = Set(app.windowIDs)
        if candidates.contains(where: { windowIDs.contains(UInt64($0)) }) { return true }
        let processIDs = Set(app.processIDs)
        for candidate in Set(candidates) {
            if !processIDs.isEmpty, let pid = server.values(candidate, "_NET_WM_PID")?.first,
                let pid = Int32(exactly: pid), processIDs.contains(pid)
            {
                return true
            }
            // An app id names an X11 app by its WM_CLASS, either part (Xwayland's app_id is the class).
            if !app.appIDs.isEmpty, let names = server.windowClass(candidate),
                app.includes(appID: names.instance) || app.includes(appID: names.windowClass)
            {
                return true
            }
        }
        return false
    }
}
