import Foundation
import TestSupport
import Testing

/// KDE Plasma's stack: headless KWin (5.27 from Debian 12, 6.3 from the Debian 13 userland) with
/// maliit-keyboard as its input method, shown with `forceActivate` (Plasma's keyboard button) and
/// hidden with `active` false, watched by the host's kbwatch as the session's user. KWin 5 says
/// whether its keyboard is up, never where: frames are null and geometry unknown; on KWin 6 the
/// package's KWin script tells the keyboard's window (KWin6Tests). KWin 6 signals a show before
/// its `visible` turns true: every show must still be seen.
@Suite("kwin: KWin's virtual keyboard with maliit-keyboard")
struct KWinTests {
    /// What runs in the session, from the stack under test (dbus-send, the tests' own tool, is the host's).
    static let sessionPrograms = ["kwin_wayland", "maliit-keyboard", "dbus-daemon"]

    /// A stranger's word for KWin's keyboard: `visible` true in PropertiesChanged, visibleChanged,
    /// `org.kde.KWin` lost and taken, and `visible` true again.
    static let forged: [ForgedSignals.Signal] = {
        let (path, interface) = ("/VirtualKeyboard", "org.kde.kwin.VirtualKeyboard")
        let visible = ForgedSignals.Signal.propertyTrue(path: path, interface: interface, property: "visible")
        return [
            visible, .variant(path: path, interface: interface, member: "visibleChanged", value: "()"),
            .nameLost("org.kde.KWin"), .nameTaken("org.kde.KWin"), visible,
        ]
    }()

    @Test(
        "the manager's lifecycle with the keyboard up: restarts from callbacks, two stops, 1 000 start/stop races, an owner released in its callback",
        arguments: Stack.maliit)
    func lifecycleRaces(stack: Stack) throws {
        guard try Programs.ready(["dbus-send"]), try Userland.ready(stack, Self.sessionPrograms) else { return }
        let kwin = try HeadlessKWin(stack: stack)
        defer { kwin.stop() }
        try kwin.forceActivate()
        try kwin.waitForVisible(true)
        let runner = try LifecycleRaces.runnerCopy(in: kwin.runtime)
        let figures = try LifecycleRaces.expectPassed(try kwin.run([runner, "kwin", "kwin:"], timeout: 600))
        print("KWin on \(stack): \(figures)")
    }

    @Test(
        "selected in a KWin session; show and hide each one pair; --state; --show and --hide; a late watcher; a stranger's signals change nothing",
        arguments: Stack.maliit)
    func showAndHide(stack: Stack) throws {
        guard try Programs.ready(["dbus-send"]), try Userland.ready(stack, Self.sessionPrograms) else { return }
        let kwin = try HeadlessKWin(stack: stack)
        defer { kwin.stop() }

        // The session picks kwin; wayland (KWin offers layer shell) says why it cannot.
        let listed = try kwin.kbwatch(["--list-backends"])
        #expect(listed.output.contains("kwin: available: "), "\(listed.output)")
        #expect(
            listed.output.contains("wayland: unavailable: ") && listed.output.contains("is KWin"), "\(listed.output)")
        let hidden = try kwin.kbwatch(["--state", "--json"])
        #expect(hidden.status == 1, "\(hidden.output)")

        let watcher = try kwin.watch(["--json"])
        defer { watcher.stop() }
        try kwin.forceActivate()
        try kwin.waitForVisible(true)
        let shown = try watcher.next("didShow", after: 0)
        #expect(shown.string("backend") == "kwin")
        #expect(shown.object("keyboard").string("name") == "KWin virtual keyboard")
        if stack == .debian12 {
            // KWin 5's scripts cannot see the keyboard's window: the place stays unknown, and the
            // script that found that out is unloaded at once.
            #expect(shown.string("geometry") == "unknown")
            #expect(shown.values["endFrame"] is NSNull)
            #expect(kwin.loadedScripts().isEmpty, "\(kwin.loadedScripts())")
        } else {
            #expect(shown.string("geometry") == "derived")
            #expect(shown.rect("endFrame")?.width == 1280, "\(shown.values)")
        }
        #expect(shown.object("output").string("name") == "Virtual-0", "\(shown.values)")
        // maliit is really up, at its own rectangle (with its suggestion strip or without), which
        // nothing open to other clients tells.
        try Wait.require("maliit's rectangle (\(kwin.maliitRectangle ?? "none"))", timeout: 5) {
            ["0 488 1280 312", "0 449 1280 351"].contains(kwin.maliitRectangle ?? "")
        }

        let state = try kwin.kbwatch(["--state", "--json"])
        #expect(state.status == 0, "\(state.output)")
        let keyboards = try JSONLine(state.output).array("keyboards")
        #expect(
            keyboards.count == 1 && keyboards.first?.string("geometry") == (stack == .debian12 ? "unknown" : "derived"),
            "\(state.output)")
        // A watcher started while the keyboard is up reports it at once.
        let late = try kwin.watch(["--json"])
        defer { late.stop() }
        let lateShown = try late.next("didShow", after: 0)
        if stack == .debian13 {
            // Up before the watcher started: its place, from the script's first reports.
            #expect(lateShown.rect("endFrame") == shown.rect("endFrame"), "\(lateShown.values)")
        }

        try kwin.deactivate()
        try kwin.waitForVisible(false)
        let gone = try watcher.next("didHide", after: shown.index)
        #expect(gone.object("keyboard").string("name") == "KWin virtual keyboard")

        // A stranger speaking for KWin, addressed to the watcher. None is believed.
        try ForgedSignals.expectIgnored(Self.forged, by: watcher, bus: kwin.busAddress, as: kwin.user)

        let show = try kwin.kbwatch(["--show"])
        #expect(show.status == 0, "kbwatch --show: \(show.output)")
        try kwin.waitForVisible(true)
        let again = try watcher.next("didShow", after: gone.index)
        let hide = try kwin.kbwatch(["--hide"])
        #expect(hide.status == 0, "kbwatch --hide: \(hide.output)")
        try kwin.waitForVisible(false)
        let last = try watcher.next("didHide", after: again.index)

        // One will/did pair per show and per hide, nothing else (but for maliit settling on its
        // rectangle during the first, cold show on KWin 6, which moves the window once).
        let events = watcher.lines.all.prefix(last.index).compactMap { try? JSONLine($0.text).string("event") }
            .filter { $0 != "willChangeFrame" && $0 != "didChangeFrame" }
        #expect(
            events == ["willShow", "didShow", "willHide", "didHide", "willShow", "didShow", "willHide", "didHide"])
        #expect(watcher.isRunning && late.isRunning, "\(watcher.errors) \(late.errors)")
        // Keyboards at an unknown place are schema 1 too (null frames).
        if try SchemaValidator.ready() {
            let report = try SchemaValidator.validate(
                watcher.lines.all.map(\.text) + [state.output.trimmingCharacters(in: .newlines)])
            #expect(report.status == 0, "\(report.output)")
        }
    }

    @Test(
        "a GTK 3 entry taking the focus brings maliit up, the focus moving away takes it down: one pair each",
        arguments: Stack.maliit)
    func entryFocus(stack: Stack) throws {
        guard try Programs.ready(["dbus-send"]), try Userland.ready(stack, Self.sessionPrograms + ["python3"]) else {
            return
        }
        let kwin = try HeadlessKWin(stack: stack)
        defer { kwin.stop() }
        let app = try kwin.launchGTK(EntryApp.script, name: "entry.py")
        try Wait.require("the app's window to be active", timeout: 15) { app.log.contains("active") || !app.isRunning }
        if !app.isRunning { throw TestFailure("the app exited:\n\(app.log)") }
        let watcher = try kwin.watch(["--json"])
        defer { watcher.stop() }
        Thread.sleep(forTimeInterval: 0.5)
        #expect(watcher.lines.count == 0, "\(watcher.lines.all.map(\.text))")

        app.signal(SIGUSR1)  // the entry takes the focus: KWin brings its input method up
        try kwin.waitForVisible(true)
        let shown = try watcher.next("didShow", after: 0)
        #expect(shown.object("keyboard").string("name") == "KWin virtual keyboard")
        #expect(shown.object("output").string("name") == "Virtual-0")
        app.signal(SIGUSR2)  // a button takes it back
        try kwin.waitForVisible(false)
        let hidden = try watcher.next("didHide", after: shown.index)
        let events = watcher.lines.all.prefix(hidden.index).compactMap { try? JSONLine($0.text).string("event") }
        #expect(events == ["willShow", "didShow", "willHide", "didHide"])
    }

    @Test(
        "the bus going away hides the keyboard and the watch goes on; KWin going away ends it with exit 6",
        arguments: Stack.maliit)
    func goingAway(stack: Stack) throws {
        guard try Programs.ready(["dbus-send"]), try Userland.ready(stack, Self.sessionPrograms) else { return }
        let kwin = try HeadlessKWin(stack: stack)
        defer { kwin.stop() }
        let watcher = try kwin.watch(["--json"])
        defer { watcher.stop() }
        try kwin.forceActivate()
        let shown = try watcher.next("didShow", after: 0)

        // Without the bus nothing says the keyboard is up: a hide, and kbwatch still watches.
        kwin.bus.stop()
        let hidden = try watcher.next("didHide", after: shown.index)
        #expect(hidden.object("keyboard").string("name") == "KWin virtual keyboard")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(watcher.isRunning, "\(watcher.errors)")

        // KWin itself gone: the Wayland connection breaks, kbwatch says why and exits 6.
        kwin.kwin.signal(SIGKILL)
        #expect(watcher.lines.waitForEnd(timeout: 10))
        #expect(watcher.exitStatus == 6, "\(watcher.errors)")
        #expect(watcher.errors.contains("wayland-kw"), "\(watcher.errors)")
    }
}
