import Foundation
import TestSupport
import Testing

/// `local` on wlroots compositors: the activated toplevel (wlr-foreign-toplevel-management) and,
/// on sway, the focused view's pid through sway's IPC, at the moment the keyboard shows.
@Suite("kbwatch: local from the activated toplevel on sway")
struct ToplevelOwnershipTests {
    static let first = "org.example.First"
    static let second = "org.example.Second"

    @Test(
        "two GTK 3 windows focused in turn: local for --app-id, a desktop file id and --pid only while the window is focused",
        arguments: Stack.compositors)
    func focusedWindowDecides(stack: Stack) throws {
        guard try Programs.ready(["swaymsg"]), try Userland.ready(stack, ["sway", "wvkbd-mobintl", "python3"]) else {
            return
        }
        let sway = try HeadlessSway(stack: stack)
        defer { sway.stop() }
        // First the keyboard: it gives headless sway's seat a keyboard, without which sway
        // activates no window.
        let keyboard = try sway.startWvkbd()
        defer { keyboard.stop() }
        let firstApp = try sway.launchGTK(NamedWindowApp.script, name: "first.py", arguments: [Self.first])
        try Wait.require("the first window to be active", timeout: 15) {
            firstApp.log.split(separator: "\n").last == "active" || !firstApp.isRunning
        }
        let secondApp = try sway.launchGTK(NamedWindowApp.script, name: "second.py", arguments: [Self.second])
        try Wait.require("the second window to be active", timeout: 15) {
            secondApp.log.split(separator: "\n").last == "active" || !secondApp.isRunning
        }

        let byAppID = try Kbwatch.watch(["--json", "--app-id", Self.first], environment: sway.clientEnvironment)
        defer { byAppID.stop() }
        let byDesktopFile = try Kbwatch.watch(
            ["--json", "--app-id", Self.second + ".desktop"], environment: sway.clientEnvironment)
        defer { byDesktopFile.stop() }
        // setpriv execs env, which execs Python: the pid held is the window's own process.
        let byPID = try Kbwatch.watch(["--json", "--pid", String(firstApp.pid)], environment: sway.clientEnvironment)
        defer { byPID.stop() }
        let watchers = [byAppID, byDesktopFile, byPID]
        for watcher in watchers {
            try Wait.require("kbwatch to watch (\(watcher.errors))", timeout: 15) {
                LoopThread.of(pid: watcher.pid) != nil
            }
        }
        Thread.sleep(forTimeInterval: 0.5)

        var mark = 0
        func showAndHide(focusing app: ChildProcess, _ appID: String) throws {
            try sway.message(["[app_id=\"\(appID)\"] focus"])
            try Wait.require("\(appID) to be active", timeout: 10) {
                app.log.split(separator: "\n").last == "active"
            }
            // The IPC's focus event and the compositor's state come on two sockets: both have
            // arrived long before the keyboard's reservation.
            Thread.sleep(forTimeInterval: 0.3)
            keyboard.signal(SIGUSR2)
            for watcher in watchers { _ = try watcher.next("didShow", after: mark) }
            keyboard.signal(SIGUSR1)
            for watcher in watchers { _ = try watcher.next("didHide", after: mark) }
            mark = watchers.map(\.lines.count).min()!
        }
        try showAndHide(focusing: firstApp, Self.first)
        try showAndHide(focusing: secondApp, Self.second)

        func locals(_ watcher: WatchedProcess) -> [String] {
            watcher.lines.all.compactMap { try? JSONLine($0.text) }.filter { $0.string("event") != nil }.map {
                "\($0.string("event")!) \(($0.values["local"] as? Bool).map(String.init) ?? "null")"
            }
        }
        func cycle(_ local: Bool) -> [String] {
            ["willShow", "didShow", "willHide", "didHide"].map { "\($0) \(local)" }
        }
        #expect(locals(byAppID) == cycle(true) + cycle(false), "\(byAppID.errors)")
        #expect(locals(byDesktopFile) == cycle(false) + cycle(true), "\(byDesktopFile.errors)")
        #expect(locals(byPID) == cycle(true) + cycle(false), "\(byPID.errors)")

        let doctor = try Kbwatch.run(["--doctor", "--backend", "wayland"], environment: sway.clientEnvironment)
        let lines = doctor.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.contains(
                "    focus for 'local': the activated toplevel (zwlr_foreign_toplevel_manager_v1): 2 toplevels "
                    + "followed, activated: \(Self.second); app ids are compared"), "\(doctor.stdout)")
        let ipc = try #require(sway.ipcSocket)
        #expect(
            lines.contains(
                "    pids: through sway's IPC at \(ipc) (sway pid \(sway.process.pid)), focus events as they come"),
            "\(doctor.stdout)")
        #expect(lines.contains("    can see: docking, whether a keyboard is for this app, the input layout, outputs"))
    }
}
