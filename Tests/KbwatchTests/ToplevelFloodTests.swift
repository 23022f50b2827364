import Foundation
import TestSupport
import Testing

/// A client that maps thousands of toplevels with long titles and app ids: every one is announced
/// to kbwatch through wlr-foreign-toplevel-management and sway's IPC.
///
/// On Debian 12 only: sway 1.10 (Debian 13) spends minutes mapping 800 of these views, most of its
/// time in wlroots 0.18's scene graph, and 5 000 take far longer than the 400 s allowed.
@Suite("kbwatch: a flood of toplevels on sway")
struct ToplevelFloodTests {
    static let count = 5000
    /// The longest title libwayland 1.21 (Debian 12) sends: it fails any message over 4096 bytes
    /// (header 8, length 4, the title and its NUL), at both ends, so a 64 KiB title never reaches
    /// the compositor there.
    static let titleBytes = 4083

    @Test("5 000 toplevels with 4 KiB titles: kbwatch's memory stays flat and keyboards are still reported")
    func flood() throws {
        guard try Programs.ready(["sway", "swaymsg", "wvkbd-mobintl", "setpriv"]) else { return }
        // sway 1.7 draws each title into textures as wide as the title (GiBs for these) and tiles
        // views at a cost that grows with their number: the flood's views float, titled "flood".
        // It keeps sway busy for about a minute: at the lowest priority, so that the tests running
        // beside it are not starved.
        let sway = try HeadlessSway(
            extraConfig: "for_window [app_id=\"^flood-\"] title_format \"flood\", floating enable\n", niceness: 19)
        defer { sway.stop() }
        let keyboard = try sway.startWvkbd()
        defer { keyboard.stop() }
        let watcher = try Kbwatch.watch(
            ["--json", "--app-id", "org.example.Absent"], environment: sway.clientEnvironment)
        defer { watcher.stop() }
        try Wait.require("kbwatch to watch (\(watcher.errors))", timeout: 15) { LoopThread.of(pid: watcher.pid) != nil }
        Thread.sleep(forTimeInterval: 0.5)

        func showAndHide(after mark: Int) throws -> (shown: JSONLine, hidden: JSONLine) {
            keyboard.signal(SIGUSR2)
            let shown = try watcher.next("didShow", after: mark)
            keyboard.signal(SIGUSR1)
            return (shown, try watcher.next("didHide", after: shown.index))
        }
        // Once before measuring, so that what the first show allocates counts as the start.
        let warmUp = try showAndHide(after: 0)
        #expect(warmUp.shown.values["local"] as? Bool == false, "nothing is activated: not this app's")
        let before = try #require(ProcessUsage.sample(pid: watcher.pid))

        let floodPath = URL(fileURLWithPath: Kbwatch.path).deletingLastPathComponent()
            .appendingPathComponent("toplevelflood").path
        let flood = try ChildProcess(
            "nice", ["-n", "19", floodPath, String(Self.count), String(Self.titleBytes)],
            environment: sway.clientEnvironment, directory: sway.runtime.path)
        defer { flood.stop() }
        let started = Date()
        try Wait.require("the flood to map \(Self.count) toplevels", timeout: 400) {
            flood.log.contains("mapped \(Self.count)") || !flood.isRunning
        }
        let mapping = Date().timeIntervalSince(started)
        #expect(flood.log.contains("mapped \(Self.count)"), "\(flood.log)")
        #expect(watcher.isRunning, "kbwatch: \(watcher.errors)")
        let after = try #require(ProcessUsage.sample(pid: watcher.pid))

        let later = try showAndHide(after: warmUp.hidden.index)
        // The flood's last view has the focus, and it is beyond the toplevels followed: unknown.
        #expect(later.shown.values["local"] is NSNull, "\(later.shown.values)")
        #expect(later.shown.rect("endFrame") == PrintedFrame(x: 0, y: 560, width: 1280, height: 240))

        let grown = after.residentKiB - before.residentKiB
        print(
            "kbwatch resident memory: \(mebibytesText(kibibytes: before.residentKiB)) before, "
                + "\(mebibytesText(kibibytes: after.residentKiB)) after \(Self.count) toplevels "
                + "(mapped in \(Int(mapping)) s), \(after.since(before).cpuDescription)")
        #expect(grown <= 3 * 1024, "grew by \(grown) KiB")

        // A client that binds the manager now is sent the whole list at once, which sway's
        // libwayland-server (1.21) often cannot queue: it drops the connection, and --doctor says
        // so. A client that reads fast enough gets the whole list, and --doctor says how many it
        // follows. Either way kbwatch, whose toplevels have a connection of their own, watches on.
        let doctor = try Kbwatch.run(["--doctor", "--backend", "wayland"], environment: sway.clientEnvironment)
        let focusLine = doctor.stdout.split(separator: "\n").first { $0.hasPrefix("    focus for 'local': ") }
        let dropped =
            focusLine?.hasPrefix(
                "    focus for 'local': unknown for now: the connection for zwlr_foreign_toplevel_manager_v1 ended "
                    + "(lost the connection to the Wayland compositor at \(sway.socket): ") == true
            && focusLine?.hasSuffix(
                "); a compositor drops a client its list overflows, and watching tries again every 5 s") == true
        let followed =
            focusLine?.hasPrefix(
                "    focus for 'local': the activated toplevel (zwlr_foreign_toplevel_manager_v1): 1024 toplevels "
                    + "followed, \(Self.count - 1024) more not followed (at most 1024 are)") == true
        #expect(dropped || followed, "\(doctor.stdout)")
        #expect(!doctor.stdout.contains(String(repeating: "t", count: 64)), "no title is printed")
        #expect(watcher.isRunning, "kbwatch: \(watcher.errors)")
    }
}
