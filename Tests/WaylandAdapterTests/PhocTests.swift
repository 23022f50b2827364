import Foundation
import KeyboardAdapterCore
import KeyboardServices
import TestSupport
import Testing
import WaylandAdapter

extension WaylandIntegration {
    /// Phosh's stack without a phone: phoc nested in headless sway, squeekboard showing on its own
    /// because a real GTK 3 Wayland entry takes the focus, and the backend joined with
    /// squeekboard's service, as the `KeyboardAdapter` product runs it.
    @Suite("phoc nested in sway, with squeekboard and a GTK 3 entry")
    struct PhocTests {
        /// phoc's output inside sway's 1280x800 one (no borders, so it fills it).
        static let output = Output(name: "WL-1", frame: Rect(x: 0, y: 0, width: 1280, height: 800))
        static let strip = Rect(x: 0, y: 400, width: 1280, height: 400)

        static let entryID = "org.example.Entry"

        @Test(
            "the entry's focus shows squeekboard: its strip, named squeekboard, local for the entry's app id only",
            arguments: Stack.compositors)
        func entryFocus(stack: Stack) throws {
            guard try Programs.ready(["dbus-daemon", "gsettings"]),
                try Userland.ready(stack, ["sway", "phoc", "squeekboard", "wvkbd-mobintl", "python3"])
            else { return }
            let phoc = try NestedPhoc(stack: stack)
            defer { phoc.stop() }
            let squeekboard = try phoc.launch("squeekboard", [])
            try phoc.bus.waitForName("sm.puri.OSK0")
            // squeekboard may map its panel for a few tens of milliseconds while it starts.
            Thread.sleep(forTimeInterval: 0.5)
            let app = try phoc.launch("python3", [try phoc.runtime.write("entry.py", EntryApp.script), Self.entryID])
            try Wait.require("the app's window to be active", timeout: 15) {
                app.log.contains("active") || !app.isRunning
            }
            if !app.isRunning { throw TestFailure("the app exited:\n\(app.log)") }

            let sink = TrackingSink(backendName: "wayland")
            let service = DBusKeyboardService.squeekboard(environment: phoc.environment.compactMapValues { $0 })
            // phoc inherits sway's SWAYSOCK in a real session: those are another compositor's pids.
            let environment = ["SWAYSOCK": try #require(phoc.sway.ipcSocket)]
            let backend = WaylandBackend(display: phoc.socket, services: [service], environment: environment)
            let watching = try BackendLoop(
                backend, sink: sink, app: AppIdentity(processIDs: [app.pid], appIDs: [Self.entryID]))
            defer { watching.stop() }
            // Another app's watcher on the same compositor.
            let otherSink = TrackingSink(backendName: "wayland")
            let other = WaylandBackend(display: phoc.socket)
            let otherWatching = try BackendLoop(
                other, sink: otherSink, app: AppIdentity(processIDs: [app.pid], appIDs: ["org.example.Other"]))
            defer { otherWatching.stop() }
            try Fixture.waitForUsableArea(backend, Self.output.name, Self.output.frame)
            try Fixture.waitForUsableArea(other, Self.output.name, Self.output.frame)
            #expect(service.state.isRunning && service.state.isVisible == false, "\(service.state)")
            #expect(sink.updates.isEmpty, "\(describe(sink.updates))")

            app.signal(SIGUSR1)  // the entry takes the focus
            try sink.waitForUpdates(2, "squeekboard shown for the entry", timeout: 10)
            app.signal(SIGUSR2)  // a button takes it back
            try sink.waitForUpdates(4, "squeekboard hidden", timeout: 10)
            try otherSink.waitForUpdates(4, "squeekboard shown and hidden, seen by the other app", timeout: 10)

            let named = "squeekboard pid=\(squeekboard.pid)"
            #expect(
                sink.updates.map { "\($0.keyboard.name) pid=\($0.keyboard.pid.map(String.init) ?? "-")" }
                    == Array(repeating: named, count: 4))
            #expect(
                Fixture.lines(sink.updates)
                    == Fixture.showHide(
                        id: "wayland:WL-1:bottom", frame: Self.strip,
                        offScreen: Rect(x: 0, y: 800, width: 1280, height: 400), edge: .bottom, output: Self.output,
                        layout: nil, local: true),
                "\(describe(sink.updates))")
            #expect(otherSink.updates.map(\.isLocal) == [false, false, false, false])
            // squeekboard's Visible comes a few milliseconds after its strip goes.
            try Wait.require("squeekboard to say it is hidden (\(service.state))", timeout: 5) {
                service.state.isVisible == false
            }

            let report = backend.diagnose()
            #expect(
                report.contains(
                    "focus for 'local': the activated toplevel (zwlr_foreign_toplevel_manager_v1): 1 toplevels "
                        + "followed, activated: \(Self.entryID); app ids are compared"), "\(report)")
            let swayPID = phoc.sway.process.pid
            let pids = report.first { $0.hasPrefix("pids: ") } ?? ""
            #expect(
                pids.hasPrefix(
                    "pids: not compared (SWAYSOCK \(environment["SWAYSOCK"]!) belongs to another compositor (pid \(swayPID); this display's is pid "
                )
                    && pids.hasSuffix(")): only app ids decide 'local' here"), "\(pids)")
        }
    }
}
