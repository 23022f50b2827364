import Foundation
import KeyboardAdapterCore
import TestSupport
import WaylandAdapter

/// Shared steps of the Wayland integration tests.
enum Fixture {
    /// Starts a backend on `sway` with a tracking sink, and waits until it has measured `output`'s
    /// usable area as `area` (the probe is in place before the test does anything).
    static func watch(_ sway: HeadlessSway, until output: String, measures area: Rect) throws
        -> (backend: WaylandBackend, sink: TrackingSink, watching: BackendLoop)
    {
        let sink = TrackingSink(backendName: "wayland")
        let backend = WaylandBackend(display: sway.socket)
        let watching = try BackendLoop(backend, sink: sink)
        try waitForUsableArea(backend, output, area)
        return (backend, sink, watching)
    }

    /// squeekboard on `sway`, talking on `bus` (the test process's, so it runs as its user, with no
    /// accessibility bus daemons to clean up after), once it owns `sm.puri.OSK0`.
    static func squeekboard(_ sway: HeadlessSway, bus: SessionBus) throws -> ChildProcess {
        let keyboard = try sway.startClient(
            ["squeekboard"],
            environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "GDK_BACKEND": "wayland", "NO_AT_BRIDGE": "1"],
            asTestUser: false)
        do {
            try bus.waitForName("sm.puri.OSK0")
        } catch {
            keyboard.stop()
            throw error
        }
        return keyboard
    }

    /// Waits until the backend has measured `output`'s usable area as `area`.
    static func waitForUsableArea(_ backend: WaylandBackend, _ output: String, _ area: Rect, timeout: Double = 10)
        throws
    {
        try Wait.require("usable area \(area) on \(output) (have \(backend.outputs))", timeout: timeout) {
            backend.outputs.contains { $0.output.name == output && $0.usableArea == area }
        }
    }

    /// Waits until sway's focused workspace area (from IPC, the compositor's own view) satisfies
    /// `condition`, and returns it.
    static func waitForWorkspaceArea(
        _ sway: HeadlessSway, _ what: String, timeout: Double = 10,
        _ condition: (Rect) -> Bool
    ) throws -> Rect {
        var area: Rect?
        let held = Wait.until(timeout: timeout, interval: 0.05) {
            area = try? workspaceArea(sway)
            return area.map(condition) ?? false
        }
        guard held, let area else {
            throw TestFailure(
                "timed out after \(timeout) s waiting for \(what) in sway's workspace area "
                    + "(last \(area.map(\.description) ?? "none"))")
        }
        return area
    }

    /// The first workspace's rectangle, from `swaymsg -t get_workspaces`.
    static func workspaceArea(_ sway: HeadlessSway, output: String? = nil) throws -> Rect {
        let json = try sway.message(["-t", "get_workspaces", "-r"])
        guard let list = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]],
            let rect = list.first(where: { output == nil || $0["output"] as? String == output })?["rect"]
                as? [String: Int],
            let x = rect["x"], let y = rect["y"], let width = rect["width"], let height = rect["height"]
        else { throw TestFailure("unexpected get_workspaces reply: \(json)") }
        return Rect(x: x, y: y, width: width, height: height)
    }

    /// One line per update with everything a test pins down: event, id, frames, docking,
    /// output, provenance, layout.
    static func lines(_ updates: [KeyboardUpdate]) -> [String] {
        updates.map { u in
            "\(u.event) \(u.keyboard.id) \(u.beginFrame) -> \(u.endFrame) docked=\(u.isDocked) "
                + "edge=\(u.dockedEdge?.rawValue ?? "-") output=\(u.output.map(\.description) ?? "-") "
                + "\(u.geometry.rawValue) local=\(u.isLocal.map(String.init) ?? "nil") "
                + "layout=\(u.layout?.name ?? "nil")"
        }
    }

    /// The lines of a show then a hide of one keyboard: willShow, didShow, willHide, didHide.
    static func showHide(
        id: String, frame: Rect, offScreen: Rect, edge: Edge, output: Output,
        layout: String?, local: Bool? = nil
    ) -> [String] {
        let tail =
            "docked=true edge=\(edge.rawValue) output=\(output) derived local=\(local.map(String.init) ?? "nil") "
            + "layout=\(layout ?? "nil")"
        return [
            "willShow \(id) \(offScreen) -> \(frame) \(tail)",
            "didShow \(id) \(offScreen) -> \(frame) \(tail)",
            "willHide \(id) \(frame) -> \(offScreen) \(tail)",
            "didHide \(id) \(frame) -> \(offScreen) \(tail)",
        ]
    }

    /// The lines of wvkbd shown, hidden and shown again at the bottom of `output`, `height` px
    /// high: exactly, or (`stepped`, wvkbd 0.15) with a first show whose will names the 120 px strip
    /// wvkbd may reserve for a frame before it grows to its height (its log: "Resize 1280x120",
    /// then "Resize 1280x250").
    static func wvkbdCycles(output: Output, height: Int, stepped: Bool) -> [[String]] {
        let frame = output.frame
        func strip(_ height: Int) -> Rect {
            Rect(x: frame.x, y: frame.maxY - height, width: frame.width, height: height)
        }
        func below(_ height: Int) -> Rect { Rect(x: frame.x, y: frame.maxY, width: frame.width, height: height) }
        let cycle = showHide(
            id: "wayland:\(output.name):bottom", frame: strip(height), offScreen: below(height), edge: .bottom,
            output: output, layout: "wvkbd")
        let exact = cycle + cycle.prefix(2)
        guard stepped else { return [exact] }
        var first = exact
        first[0] = first[0].replacingOccurrences(
            of: "\(below(height)) -> \(strip(height))", with: "\(below(120)) -> \(strip(120))")
        first[1] = first[1].replacingOccurrences(of: "\(below(height)) ->", with: "\(below(120)) ->")
        return [exact, first]
    }

    /// Shows a hidden wvkbd (SIGUSR2), hides it (SIGUSR1) and shows it again, waiting each time for
    /// its pair of updates in `sink`.
    static func showHideShow(_ keyboard: ChildProcess, _ sink: TrackingSink) throws {
        keyboard.signal(SIGUSR2)
        try sink.waitForUpdates(2, "wvkbd shown")
        keyboard.signal(SIGUSR1)
        try sink.waitForUpdates(4, "wvkbd hidden")
        keyboard.signal(SIGUSR2)
        try sink.waitForUpdates(6, "wvkbd shown again")
    }

    /// Starts wvkbd-mobintl hidden on `sway` and waits until it handles SIGUSR1 and SIGUSR2.
    static func wvkbd(_ sway: HeadlessSway, arguments: [String] = []) throws -> ChildProcess {
        try sway.startWvkbd(arguments: arguments)
    }

    /// A headless sway of `stack` with wvkbd shown and its zone settled: the compositor, the
    /// keyboard, its height (wvkbd 0.12 reserves 240 px, 0.15 250 px; a first show of 0.15 may pass
    /// through 120 px: the settled zone is waited for) and the workspace area left.
    static func dockedWvkbd(_ stack: Stack) throws -> (HeadlessSway, ChildProcess, Int, Rect) {
        let sway = try HeadlessSway(stack: stack)
        do {
            let keyboard = try wvkbd(sway)
            let height = stack == .debian12 ? 240 : 250
            keyboard.signal(SIGUSR2)
            let docked = try waitForWorkspaceArea(sway, "wvkbd's exclusive zone") { $0.height == 800 - height }
            return (sway, keyboard, height, docked)
        } catch {
            sway.stop()
            throw error
        }
    }

    /// Starts wvkbd-mobintl hidden on `labwc`, as on sway.
    static func wvkbd(_ labwc: HeadlessLabwc) throws -> ChildProcess {
        try HeadlessSway.waitForSignals(try labwc.startClient(["wvkbd-mobintl", "--hidden"]))
    }
}
