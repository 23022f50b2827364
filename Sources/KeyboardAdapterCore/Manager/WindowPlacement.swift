import KeyboardBackendInterface

/// Where the display server shows the app's window while a keyboard is up, and asking it to leave
/// the window alone. GNOME Shell moves the focused window itself: when its keyboard opens and would
/// cover the window's text cursor, it slides the window up by the keyboard's whole height with the
/// keyboard, and back when it hides, telling the app nothing. An app that also makes room for the
/// keyboard in its window would then make room twice; these let it do one or the other.
extension KeyboardManager {
    /// Where the display server shows this app's focused window while the keyboard that came up
    /// for it is visible: the window's frame (without the shadow a client draws around it) once
    /// the display server's own move of it ends, in the keyboards' coordinates. nil when no
    /// visible keyboard is this app's (``KeyboardUpdate/isLocal``) or nothing tells (only the
    /// GNOME backend does, through its extension). Any thread.
    public var focusedWindowFrame: Rect? {
        visibleKeyboards.first { $0.isLocal == true && $0.focus?.frame != nil }?.focus?.frame
    }

    /// The insets this app's focused window keeps free from the keyboards, measured where the
    /// display server shows it (``focusedWindowFrame``): what ``insets(forWindow:includingPanels:)``
    /// gives for a window the display server does not move. nil when nothing tells where the
    /// window is shown. Any thread.
    public func insetsForFocusedWindow(includingPanels: Bool = true) -> EdgeInsets? {
        focusedWindowFrame.map { insets(forWindow: $0, includingPanels: includingPanels) }
    }

    /// Asks the display server to leave the windows of `processIDs` where they are when a
    /// keyboard opens, as an app that makes room for the keyboard itself wants (Android's
    /// `adjustResize` rather than `adjustPan`); an empty list ends the request. It replaces the
    /// processes given before, holds while the manager runs, and takes effect the next time the
    /// display server would move a window. Returns false when no keyboard service of the backend
    /// can (only GNOME Shell, through the package's extension, moves windows for its keyboard).
    /// Any thread.
    @discardableResult
    public func leaveWindowsInPlace(processIDs: [Int32]) -> Bool {
        let asked = backend.services.map { $0.leaveWindowsInPlace(processIDs: processIDs) }
        return asked.contains(true)
    }
}
