// The text of Companions/kwin/keyboard-adapter.js, which RepositoryTests keep identical to it:
// kbwatch carries the script it loads into KWin, so that it runs from wherever it is installed.

extension KWinCompanion {
    /// The script, with `@RECEIVER@` where the watcher's unique bus name goes.
    static let scriptTemplate = #"""
        // KeyboardAdapter's companion inside KWin: tells one watcher where KWin puts its input method's
        // panel (the on-screen keyboard) and which window has the focus. The watcher writes this file
        // with its own bus name in RECEIVER, loads it when it starts and unloads it when it stops; the
        // script changes nothing in KWin. A script left behind by a watcher that was killed calls a bus
        // name that no longer exists (the bus never reuses one) until the next watcher unloads it.
        const RECEIVER = "@RECEIVER@";
        const PATH = "/org/keyboardadapter/KWinCompanion";
        const INTERFACE = "org.keyboardadapter.KWinCompanion1";

        function report(fields) {
            callDBus(RECEIVER, PATH, INTERFACE, "Report", JSON.stringify(fields));
        }

        function rectangle(geometry) {
            return [Math.round(geometry.x), Math.round(geometry.y), Math.round(geometry.width), Math.round(geometry.height)];
        }

        function panel(window) {
            return {
                kind: "panel",
                id: String(window.internalId),
                frame: rectangle(window.frameGeometry),
                output: window.output ? String(window.output.name) : null,
            };
        }

        function focus(window) {
            if (!window) return { kind: "focus", pid: null, appIDs: [] };
            const ids = [window.resourceClass, window.resourceName, window.desktopFileName];
            return {
                kind: "focus",
                pid: window.pid > 0 ? window.pid : null,
                appIDs: ids.filter(function (id) { return id; }).map(String),
            };
        }

        // A panel window that is hidden is a hidden keyboard: plasma-keyboard (KWin 6.7) hides its window
        // and keeps it until the next show, where maliit's went away.
        function reportPanel(window) {
            if (window.hidden) report({ kind: "panelGone", id: String(window.internalId) });
            else report(panel(window));
        }

        function follow(window) {
            if (!window.inputMethod) return;
            reportPanel(window);
            window.frameGeometryChanged.connect(function () { if (!window.hidden) report(panel(window)); });
            if (window.hiddenChanged) window.hiddenChanged.connect(function () { reportPanel(window); });
        }

        if (typeof workspace.windowList !== "function") {
            // KWin 5: its scripts see the panel only as the whole output; the watcher unloads this.
            report({ kind: "hello", api: 5 });
        } else {
            report({ kind: "hello", api: 6 });
            workspace.windowAdded.connect(follow);
            workspace.windowRemoved.connect(function (window) {
                if (window.inputMethod) report({ kind: "panelGone", id: String(window.internalId) });
            });
            workspace.windowActivated.connect(function (window) { report(focus(window)); });
            workspace.windowList().forEach(follow);
            report(focus(workspace.activeWindow));
        }
        """#
}
