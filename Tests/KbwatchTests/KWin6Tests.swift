import Foundation
import TestSupport
import Testing

/// KDE Plasma 6: KWin 6.3 from the Debian 13 userland with maliit-keyboard, watched by the host's
/// kbwatch, which loads the package's KWin script: the keyboard's real rectangle, whose it is,
/// and nothing left in KWin afterwards.
@Suite("kwin: KWin 6's keyboard window through the package's KWin script")
struct KWin6Tests {
    static let sessionPrograms = KWinTests.sessionPrograms + ["python3"]

    @Test("three forceActivate shows and an entry's: the rectangle maliit logs, isLocal for the entry's pid only")
    func realRectangle() throws {
        guard try Programs.ready(["dbus-send"]), try Userland.ready(.debian13, Self.sessionPrograms) else { return }
        let kwin = try HeadlessKWin(stack: .debian13)
        defer { kwin.stop() }
        let app = try kwin.launchGTK(EntryApp.script, name: "entry.py")
        try Wait.require("the app's window to be active", timeout: 15) { app.log.contains("active") || !app.isRunning }
        if !app.isRunning { throw TestFailure("the app exited:\n\(app.log)") }
        let local = try kwin.watch(["--json", "--pid", String(app.pid)])
        defer { local.stop() }
        let other = try kwin.watch(["--json", "--pid", "1"])
        defer { other.stop() }
        try Wait.require("both watchers' scripts to be loaded", timeout: 10) { kwin.loadedScripts().count == 2 }

        var index = 0
        for round in 0..<4 {
            if round < 3 { try kwin.forceActivate() } else { app.signal(SIGUSR1) }
            try kwin.waitForVisible(true)
            let shown = try local.next("didShow", after: index)
            #expect(shown.rect("endFrame") != nil, "round \(round): \(shown.values)")
            #expect(shown.string("geometry") == "derived", "round \(round)")
            #expect(shown.object("output").string("name") == "Virtual-0", "round \(round)")
            // The keyboard's window in KWin is the rectangle maliit logs once it has settled:
            // 0,488 1280x312, or 0,449 1280x351 with its suggestion strip (an entry's focus may
            // bring it); the first, cold show may step from one to the other (a frame change).
            var reported: PrintedFrame?
            let settled = Wait.until(timeout: 5) {
                reported = Self.lastFrame(local, from: shown.index - 1)
                return reported.map { "\($0.x) \($0.y) \($0.width) \($0.height)" } == kwin.maliitRectangle
            }
            #expect(
                settled,
                "round \(round): reported \(reported?.description ?? "none"), maliit \(kwin.maliitRectangle ?? "none")")
            #expect(
                ["0 488 1280 312", "0 449 1280 351"].contains(kwin.maliitRectangle ?? ""),
                "round \(round): \(kwin.maliitRectangle ?? "none")")
            #expect(shown.values["local"] as? Bool == true, "round \(round): \(shown.values)")
            let seen = try other.next("didShow", after: 0)
            #expect(seen.values["local"] as? Bool == false, "\(seen.values)")

            let state = try kwin.kbwatch(["--state", "--json"])
            #expect(state.status == 0, "round \(round): \(state.output)")
            if round < 3 { try kwin.deactivate() } else { app.signal(SIGUSR2) }
            try kwin.waitForVisible(false)
            let hidden = try local.next("didHide", after: shown.index)
            index = hidden.index
            let after = try kwin.kbwatch(["--state", "--json"])
            #expect(after.status == 1, "round \(round): \(after.output)")
        }
        // Each show and each hide is one will/did pair; the first, cold show may move once as maliit
        // settles (0,449 1280x351, then 0,488 1280x312), which is a frame change.
        let events = local.lines.all.prefix(index).compactMap { try? JSONLine($0.text).string("event") }
        let withoutMoves = events.filter { $0 != "willChangeFrame" && $0 != "didChangeFrame" }
        #expect(
            withoutMoves == Array(repeating: ["willShow", "didShow", "willHide", "didHide"], count: 4).flatMap { $0 })
        for line in local.lines.all.prefix(index) {
            let object = try JSONLine(line.text)
            if object.string("event") == "willShow" {
                #expect(
                    object.rect("endFrame")?.width == 1280, "a show's destination is the window's frame: \(line.text)")
            }
        }
    }

    @Test("stopped: its script is unloaded; killed: the next watcher unloads what it left; two at once: two scripts")
    func nothingLeftBehind() throws {
        guard try Programs.ready(["dbus-send"]), try Userland.ready(.debian13, KWinTests.sessionPrograms) else {
            return
        }
        let kwin = try HeadlessKWin(stack: .debian13)
        defer { kwin.stop() }

        let first = try kwin.watch(["--json"])
        try Wait.require("the first watcher's script", timeout: 10) { kwin.loadedScripts().count == 1 }
        let firstScript = try #require(kwin.loadedScripts().first)
        first.stop()
        #expect(first.exitStatus == 0, "\(first.errors)")
        #expect(kwin.loadedScripts().isEmpty, "left: \(kwin.loadedScripts())")
        #expect(try kwin.isScriptLoaded(firstScript) == false)

        let killed = try kwin.watch(["--json"])
        try Wait.require("the killed watcher's script", timeout: 10) { kwin.loadedScripts().count == 1 }
        let leftover = try #require(kwin.loadedScripts().first)
        kill(killed.pid, SIGKILL)
        _ = killed.lines.waitForEnd(timeout: 5)
        // KWin, drawing in software beside a busy machine, may leave a question unanswered: asked again.
        var loaded: Bool?
        try Wait.require("KWin to say whether the leftover is loaded", timeout: 30) {
            loaded = try? kwin.isScriptLoaded(leftover)
            return loaded != nil
        }
        #expect(loaded == true, "KWin keeps a killed watcher's script")
        // A show meanwhile: the leftover calls a name the bus never gives again, and KWin goes on.
        try kwin.forceActivate()
        try kwin.waitForVisible(true)

        let next = try kwin.watch(["--json"])
        defer { next.stop() }
        let second = try kwin.watch(["--json"])
        defer { second.stop() }
        _ = try next.next("didShow", after: 0)
        _ = try second.next("didShow", after: 0)
        try Wait.require("the leftover to be unloaded", timeout: 10) { (try? kwin.isScriptLoaded(leftover)) == false }
        let scripts = kwin.loadedScripts()
        #expect(scripts.count == 2 && !scripts.contains(leftover), "\(scripts)")
        for script in scripts { #expect(try kwin.isScriptLoaded(script) == true) }

        // Anyone else on the bus calling the watchers' object is refused, and changes nothing.
        let printed = (next.lines.count, second.lines.count)
        for script in scripts {
            let fake = try kwin.run([
                "dbus-send", "--bus=\(kwin.busAddress)", "--print-reply", "--dest=:" + script.dropFirst(17),
                "/org/keyboardadapter/KWinCompanion", "org.keyboardadapter.KWinCompanion1.Report",
                #"string:{"kind":"panel","id":"fake","frame":[0,0,100,100],"output":null}"#,
            ])
            #expect(fake.status != 0, "\(fake.output)")
        }
        Thread.sleep(forTimeInterval: 0.5)
        #expect(next.lines.count == printed.0 && second.lines.count == printed.1, "\(next.lines.all.map(\.text))")
        #expect(next.isRunning && second.isRunning)
    }
}

extension KWin6Tests {
    /// The end frame of the last show or frame change printed from line `index` on.
    static func lastFrame(_ watcher: WatchedProcess, from index: Int) -> PrintedFrame? {
        watcher.lines.all.dropFirst(index).compactMap { try? JSONLine($0.text) }
            .filter { ["didShow", "didChangeFrame"].contains($0.string("event") ?? "") }.last?.rect("endFrame")
    }
}

extension HeadlessKWin {
    /// The plugin names of the KWin scripts watchers wrote, from their files.
    func loadedScripts() -> [String] {
        let directory = runtime.xdg + "/keyboard-adapter/kwin"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".js") }.map { String($0.dropLast(3)) }.sorted()
    }

    /// KWin's own word on whether the script `plugin` is loaded.
    func isScriptLoaded(_ plugin: String) throws -> Bool? {
        let result = try run([
            "dbus-send", "--bus=\(busAddress)", "--print-reply", "--dest=org.kde.KWin", "/Scripting",
            "org.kde.kwin.Scripting.isScriptLoaded", "string:\(plugin)",
        ])
        guard result.status == 0 else { return nil }
        return result.output.contains("boolean true") ? true : result.output.contains("boolean false") ? false : nil
    }
}
