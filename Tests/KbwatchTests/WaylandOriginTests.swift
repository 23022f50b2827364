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

    /// The reserved usable areas kbwatch's probe was configured with, in order, each change once
    /// (sway repeats a configure at times); the whole 1280x800 output is none.
    func reservedAreas(_ watcher: ChildProcess) -> [String] {
        var areas: [String] = []
        var last = ""
        for line in watcher.log.split(separator: "\n") where line.contains("zwlr_layer_surface_v1@") {
            guard let open = line.range(of: ".configure("), let close = line[open.upperBound...].firstIndex(of: ")")
            else { continue }
            let size = line[open.upperBound..<close].split(separator: ",").dropFirst()
                .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "x")
            if size != last && size != "1280x800" { areas.append(size) }
            last = size
        }
        return areas
    }

    @Test(
        "wvkbd on headless sway: a show asks once for each strip it reserves; the start and each hide ask nothing",
        arguments: Stack.compositors)
    func showsAskHidesDoNot(stack: Stack) throws {
        guard try Userland.ready(stack, ["sway", "wvkbd-mobintl"]) else { return }
        let sway = try HeadlessSway(stack: stack)
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

        let keyboard = try sway.startWvkbd()
        defer { keyboard.stop() }
        // wvkbd 0.12 reserves 240 px at once (the probe measures 1280x560). wvkbd 0.15 reserves 250
        // px (1280x550), but its first show may reserve 120 px for a frame before it knows its
        // output (1280x680): a strip of its own, with a query of its own.
        let settled = stack == .debian12 ? "1280x560" : "1280x550"
        for round in 1...2 {
            keyboard.signal(SIGUSR2)
            try Wait.require("didShow \(round)", timeout: 10) { count(of: "didShow", in: watcher) == round }
            let areas = reservedAreas(watcher)
            let stepped = stack != .debian12 && areas.first == "1280x680"
            #expect(
                areas == (stepped ? ["1280x680"] : []) + Array(repeating: settled, count: round),
                "show \(round): the strips reserved: \(lines(of: watcher))")
            #expect(queries(watcher) == areas.count, "show \(round): one query for each strip's edge: \(areas)")
            #expect(watcher.log.contains("willShow 0,"), "the strip at the bottom: \(lines(of: watcher))")
            keyboard.signal(SIGUSR1)
            try Wait.require("didHide \(round)", timeout: 10) { count(of: "didHide", in: watcher) == round }
            Thread.sleep(forTimeInterval: 0.2)
            #expect(
                queries(watcher) == areas.count && reservedAreas(watcher) == areas,
                "hide \(round): the whole output is usable again, nothing to ask")
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
