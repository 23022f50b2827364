import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing
import X11Adapter

/// `isLocal`: the keyboard came up while one of the app's windows (by id, or by the process the X
/// server says made it) had the focus.
@Suite("X11 ownership")
struct OwnershipTests {
    @Test("under openbox: the app's window focused gives isLocal true, another app's window false")
    func focusedWindowDecides() throws {
        guard let h = try Harness.make(openbox: true, programs: ["matchbox-keyboard", "xmessage"]) else { return }
        let apps = try XTestClient.connect(h.session.display)
        // The app's window is the test's own; another process makes the other, which claims the
        // app's pid in _NET_WM_PID, as any client may: the server's word decides.
        let mine = apps.createWindow(
            x: 100, y: 100, width: 300, height: 200, classBytes: Array("app\0App\0".utf8),
            titleBytes: Array("this app".utf8))
        let (_, theirs) = try h.session.startWindowProcess(title: "another app", instance: "other", x: 500, y: 100)
        apps.setCardinals(theirs, "_NET_WM_PID", [UInt(getpid())])
        h.setAppIdentity(AppIdentity(processIDs: [getpid()]))

        func activate(_ window: UInt) throws { try h.session.activate(window, readBy: apps) }

        try h.session.start("matchbox-keyboard", ["-d"])
        let control = try XTestClient.connect(h.session.display)
        // The window mapped last first (see X11Session.activate): openbox, slow under load, may
        // still owe it the focus when this app's window is first seen active.
        try activate(theirs)
        try activate(mine)
        try Wait.require("matchbox-keyboard -d to show on command", timeout: 15) {
            control.sendMatchboxCommand(1)
            return Wait.until(timeout: 0.5) { h.sink.updates.contains { $0.event == .didShow } }
        }
        var shown = try h.sink.waitForEvents([.willShow, .didShow], since: 0, "the show for this app")
        #expect(shown.map(\.isLocal) == [true, true], "\(shown.map(\.isLocal))")
        #expect(apps.rootCardinals("_NET_ACTIVE_WINDOW")?.first == mine, "the keyboard left the focus where it was")

        var mark = h.sink.mark
        control.sendMatchboxCommand(2)
        try h.sink.waitForEvents([.willHide, .didHide], since: mark, "the hide")
        try activate(theirs)
        mark = h.sink.mark
        control.sendMatchboxCommand(1)
        shown = try h.sink.waitForEvents([.willShow, .didShow], since: mark, "the show for another app")
        #expect(shown.map(\.isLocal) == [false, false], "\(shown.map(\.isLocal))")

        // The app named by its window instead of its process.
        h.setAppIdentity(AppIdentity(windowIDs: [UInt64(theirs)]))
        mark = h.sink.mark
        control.sendMatchboxCommand(2)
        try h.sink.waitForEvents([.willHide, .didHide], since: mark, "the second hide")
        mark = h.sink.mark
        control.sendMatchboxCommand(1)
        shown = try h.sink.waitForEvents([.willShow, .didShow], since: mark, "the show with the app named by window")
        #expect(shown.map(\.isLocal) == [true, true], "\(shown.map(\.isLocal))")
    }
}
