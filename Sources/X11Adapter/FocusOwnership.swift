import KeyboardBackendInterface

/// Judges whether a keyboard came up for this app. No keyboard links its window to the app it
/// types into, but keyboards leave the focus where it was, so the focused top-level at show time
/// tells: the window manager's `_NET_ACTIVE_WINDOW`, else (no window manager keeps it) the X
/// input focus. That window (its frame or client) is the app's when it is one of the app's windows,
/// was made by one of its processes, or has one of its app ids as `WM_CLASS` class or instance.
/// A window's process is the one the X server knows from the client's connection (X-Resource),
/// never `_NET_WM_PID`, which any client may write on any window: judged by it, an app could pass
/// its window off as another's, and a sandboxed app's pid there is the one inside its sandbox.
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

    /// What has the focus as `keyboard` (inside `keyboardFrame`, if framed) shows: the focused
    /// window, its top-level and that one's client, with the processes that made them (a window
    /// manager's frame is its own: left out) and their `WM_CLASS` parts (an X11 app id is either
    /// part; Xwayland's app_id is the class). Where the server tells no process, processes are
    /// not known. `topLevel` and `clientOf` map a window to its root-level ancestor and a frame to
    /// its client.
    func focusedTopLevel(
        keyboard: WindowID, keyboardFrame: WindowID?, server: some WindowServer,
        topLevel: (WindowID) -> WindowID?, clientOf: (WindowID) -> WindowID?
    ) -> FocusedTopLevel {
        let none = FocusedTopLevel(knows: [.windows, .processes, .appIDs])
        let keyboardWindows = Set([keyboard] + (keyboardFrame.map { [$0] } ?? []))
        var focus = isKept ? active : (server.inputFocus() ?? 0)
        if focus == 0 || keyboardWindows.contains(focus) || keyboardWindows.contains(topLevel(focus) ?? 0) {
            focus = isKept ? previous : 0
        }
        // 0 is None, 1 is PointerRoot: nothing in particular has the focus.
        guard focus > 1, focus != server.root, !keyboardWindows.contains(focus) else { return none }
        var candidates = [focus]
        var frame: WindowID?
        if let top = topLevel(focus), top != focus {
            candidates.append(top)
            if let client = clientOf(top), client != top {
                frame = top
                if client != focus { candidates.append(client) }
            }
        }
        var processIDs: [Int32] = []
        var appIDs: [String] = []
        for candidate in candidates {
            if candidate != frame, let pid = server.clientProcess(of: candidate), !processIDs.contains(pid) {
                processIDs.append(pid)
            }
            if let names = server.windowClass(candidate) {
                for name in [names.instance, names.windowClass] where !appIDs.contains(name) { appIDs.append(name) }
            }
        }
        return FocusedTopLevel(
            windowIDs: candidates.map { UInt64($0) }, processIDs: processIDs, appIDs: appIDs,
            knows: processIDs.isEmpty ? none.knows.subtracting(.processes) : none.knows)
    }
}
