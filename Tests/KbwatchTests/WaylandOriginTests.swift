import Foundation
import TestSupport
import Testing

/// Where a keyboard's strip lies takes a popup round trip to the compositor on Wayland (a layer
/// surface's configure carries only a size). It is needed only while something is reserved: at a
/// start with the whole output usable, and at a hide that makes it whole again, there is no
/// question to ask, so kbwatch reports at once.
@Suite("Wayland: the popup round trip only where the edge is unknown")
struct WaylandOriginTests {
    /// How many popup queries kbwatch has sent so far (libwayland's own request log).
    func queries(_ watcher: ChildProcess) -> Int {
        watcher.log.components(separatedBy: ".create_positioner(").count - 1
    }

    @Test("wvkbd on headless sway: a show asks once; the start and each hide ask nothing")
    func showsAskHidesDoNot() throws {
        guard try Programs.ready(["sway", "wvkbd-mobintl", "setpriv"]) else { return }
        let sway = try HeadlessSway()
        defer { sway.stop() }
        var environment = sway.clientEnvironment
        environment["WAYLAND_DEBUG"] = "client"
        let watcher = try Kbwatch.start(["--backend", "wayland", "--format", "%e %f"], environment: environment)
        defer { watcher.stop() }
        try Wait.require("kbwatch's probe on the whole output", timeout: 10) {
            watcher.log.contains("zwlr_layer_surface_v1") && watcher.log.contains(".ack_configure(")
        }
        Thread.sleep(forTimeInterval: 0.5)
        #expect(queries(watcher) == 0, "a start with nothing reserved needs no query")

        let keyboard = try ChildProcess(
            "wvkbd-mobintl", ["--hidden"], environment: sway.clientEnvironment, directory: sway.runtime.path)
        defer { keyboard.stop() }
        try Wait.require("wvkbd to handle SIGUSR1 and SIGUSR2", timeout: 10) {
            keyboard.handles(SIGUSR1) && keyboard.handles(SIGUSR2) || !keyboard.isRunning
        }
        for round in 1...2 {
            keyboard.signal(SIGUSR2)
            try Wait.require("didShow \(round)", timeout: 10) { count(of: "didShow", in: watcher) == round }
            #expect(queries(watcher) == round, "show \(round): one query for the strip's edge")
            #expect(watcher.log.contains("willShow 0,"), "the strip at the bottom: \(lines(of: watcher))")
            keyboard.signal(SIGUSR1)
            try Wait.require("didHide \(round)", timeout: 10) { count(of: "didHide", in: watcher) == round }
            Thread.sleep(forTimeInterval: 0.2)
            #expect(queries(watcher) == round, "hide \(round): the whole output is usable again, nothing to ask")
        }
    }

    /// kbwatch's own lines (the log holds libwayland's request log too).
    func lines(of watcher: ChildProcess) -> [String] {
        watcher.log.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("[") && !$0.hasPrefix(" ") }
    }

    func count(of event: String, in watcher: ChildProcess) -> Int {
        lines(of: watcher).filter { $0.hasPrefix(event + " ") }.count
    }
}
