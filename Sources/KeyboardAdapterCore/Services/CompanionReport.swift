/// What a companion the package runs inside the compositor (its KWin script) reports beside a
/// keyboard's service: the keyboard's window and the window that has the focus. Values from the
/// compositor, bounded before they get here.
public struct CompanionReport: Sendable, Hashable {
    /// The keyboard's window as the compositor places it.
    public struct Panel: Sendable, Hashable {
        /// Its frame in the global layout, in logical pixels.
        public var frame: Rect
        /// The name of the output it is on, when the compositor says.
        public var outputName: String?

        /// Creates a panel.
        public init(frame: Rect, outputName: String?) {
            self.frame = frame
            self.outputName = outputName
        }
    }

    /// The window with the focus, as the compositor names it.
    public struct Focus: Sendable, Hashable {
        /// Its process, when the compositor knows it.
        public var pid: Int32?
        /// The names the compositor gives its app (KWin: its resource class and name, its desktop
        /// file), each bounded like every app id.
        public var appIDs: [String]

        /// Creates a focus.
        public init(pid: Int32?, appIDs: [String]) {
            self.pid = pid
            self.appIDs = appIDs
        }
    }

    /// The keyboard's window while one is up; nil while none is.
    public var panel: Panel?
    /// The focused window; nil when none has the focus or it is not known.
    public var focus: Focus?

    /// Creates a report.
    public init(panel: Panel? = nil, focus: Focus? = nil) {
        self.panel = panel
        self.focus = focus
    }

    /// Whether the focused window is the app's: its pid or its app id, compared as on X11;
    /// nil when nothing can be compared.
    package func focusIsLocal(for app: AppIdentity) -> Bool? {
        guard !app.processIDs.isEmpty || !app.appIDs.isEmpty else { return nil }
        guard let focus else { return false }
        if let pid = focus.pid, app.processIDs.contains(pid) { return true }
        if focus.appIDs.contains(where: app.includes(appID:)) { return true }
        let comparable = (focus.pid != nil && !app.processIDs.isEmpty) || (!focus.appIDs.isEmpty && !app.appIDs.isEmpty)
        return comparable ? false : nil
    }
}
