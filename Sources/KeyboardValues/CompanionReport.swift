/// What a companion the package runs inside the compositor (its KWin script, its GNOME Shell
/// extension) reports beside a keyboard's service: the keyboard's window and the window that has
/// the focus. Values from the compositor, bounded before they get here.
package struct CompanionReport: Sendable, Hashable {
    /// The keyboard's window as the compositor places it.
    package struct Panel: Sendable, Hashable {
        /// Its frame in the global layout, in logical pixels.
        package var frame: Rect
        /// The name of the output it is on, when the compositor says.
        package var outputName: String?
        /// Where the compositor is moving it, when it says (GNOME Shell's slide target); nil
        /// when it does not.
        package var destination: Rect?

        /// Creates a panel.
        package init(frame: Rect, outputName: String?, destination: Rect? = nil) {
            self.frame = frame
            self.outputName = outputName
            self.destination = destination
        }
    }

    /// The window with the focus, as the compositor names it.
    package struct Focus: Sendable, Hashable {
        /// Its process, when the compositor knows it.
        package var pid: Int32?
        /// The names the compositor gives its app (KWin: its resource class and name, its desktop
        /// file), each bounded like every app id.
        package var appIDs: [String]
        /// Where the compositor shows the window once it has moved it out of the keyboard's way
        /// (GNOME Shell slides the focused window up itself), when it says.
        package var windowFrame: Rect?

        /// Creates a focus.
        package init(pid: Int32?, appIDs: [String], windowFrame: Rect? = nil) {
            self.pid = pid
            self.appIDs = appIDs
            self.windowFrame = windowFrame
        }
    }

    /// The keyboard's window while one is up; nil while none is.
    package var panel: Panel?
    /// The focused window; nil when none has the focus or it is not known.
    package var focus: Focus?
    /// The output the keyboard is on, whole (its name and its frame), when the companion says so
    /// (GNOME Shell's keyboard monitor); nil when only ``Panel/outputName`` is known.
    package var output: Output?

    /// Creates a report.
    package init(panel: Panel? = nil, focus: Focus? = nil, output: Output? = nil) {
        self.panel = panel
        self.focus = focus
        self.output = output
    }

    /// The focus as any app is judged by (``AppIdentity/isLocal(given:)``): no focused window
    /// tells both kinds; a window tells the kinds the compositor gave for it.
    package var focusedTopLevel: FocusedTopLevel {
        guard let focus else { return FocusedTopLevel(knows: [.processes, .appIDs]) }
        var kinds: FocusedTopLevel.Kinds = []
        if focus.pid != nil { kinds.insert(.processes) }
        if !focus.appIDs.isEmpty { kinds.insert(.appIDs) }
        return FocusedTopLevel(
            processIDs: focus.pid.map { [$0] } ?? [], appIDs: focus.appIDs, knows: kinds, frame: focus.windowFrame)
    }
}
