/// The top-level window that had the focus when a keyboard showed, as the display server names
/// it: keyboards leave the focus where it was, so this is the window typed into. Enough to judge,
/// for any app, whether the keyboard came up for it (``AppIdentity/isLocal(given:)``), which is
/// how one watcher can answer many apps. Empty lists with kinds in ``knows``: nothing had the
/// focus.
public struct FocusedTopLevel: Sendable, Hashable {
    /// Which kinds of name the display server told for this focus.
    public struct Kinds: OptionSet, Sendable, Hashable {
        /// The raw bits.
        public let rawValue: Int
        /// Creates kinds from bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Process ids (X11: the X server's, through X-Resource; sway's IPC; KWin's script; GNOME's
        /// extension).
        public static let processes = Kinds(rawValue: 1 << 0)
        /// X11 window ids (the window, its top-level frame and client).
        public static let windows = Kinds(rawValue: 1 << 1)
        /// App ids (X11 `WM_CLASS` parts, Wayland `app_id`s, KWin's resource class and desktop file).
        public static let appIDs = Kinds(rawValue: 1 << 2)
    }

    /// The window and its top-level frame and client (X11).
    public var windowIDs: [UInt64]
    /// Its processes.
    public var processIDs: [Int32]
    /// Its app ids, each at most ``AppIdentity/maximumAppIDBytes`` bytes.
    public var appIDs: [String]
    /// The kinds the display server told: an app identity whose kinds are all missing here
    /// cannot be judged (nil), never judged foreign.
    public var knows: Kinds
    /// Where the display server shows the window once the keyboard's transition ends, in the
    /// keyboard's coordinates, when it says: GNOME Shell slides the focused window up by its
    /// keyboard's height when the keyboard would cover the window's text cursor (unless the app
    /// asked to be left in place), and tells the app nothing. The window's own frame, without the
    /// shadow a client may draw around it. nil when nothing tells.
    public var frame: Rect?

    /// Creates a focus.
    public init(
        windowIDs: [UInt64] = [], processIDs: [Int32] = [], appIDs: [String] = [], knows: Kinds, frame: Rect? = nil
    ) {
        self.windowIDs = windowIDs
        self.processIDs = processIDs
        self.appIDs = appIDs.filter { !$0.isEmpty && $0.utf8.count <= AppIdentity.maximumAppIDBytes }
        self.knows = knows
        self.frame = frame
    }
}

extension AppIdentity {
    /// Whether a keyboard that showed while `focus` had the focus came up for this app: true when
    /// one of its windows, processes or app ids is the focused one's; false when the display
    /// server told a kind this identity has and nothing matched; nil when nothing can be compared
    /// (no focus known, or none of this identity's kinds told).
    public func isLocal(given focus: FocusedTopLevel?) -> Bool? {
        guard let focus else { return nil }
        if focus.windowIDs.contains(where: windowIDs.contains) { return true }
        if focus.processIDs.contains(where: processIDs.contains) { return true }
        if focus.appIDs.contains(where: includes(appID:)) { return true }
        let comparable =
            (!windowIDs.isEmpty && focus.knows.contains(.windows))
            || (!processIDs.isEmpty && focus.knows.contains(.processes))
            || (!appIDs.isEmpty && focus.knows.contains(.appIDs))
        return comparable ? false : nil
    }
}
