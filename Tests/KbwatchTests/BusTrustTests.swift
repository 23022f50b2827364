import Foundation
import TestSupport
import Testing

/// The session service against clients that try to end it, stall it, or pass for someone they are
/// not: on a real session bus, with xvkbd on Xvfb with openbox, each attack beside a control run.
@Suite("kbwatch --serve fails closed")
struct BusTrustTests {
    /// Python with GDBus: `Show` calls sent asynchronously from `connections` connections of one
    /// process, each keeping `outstanding` calls unanswered at once, each call carrying
    /// `descriptors` descriptors (copies of /dev/null), for `seconds` seconds or until `total`
    /// calls were sent; prints `sent N`, then one line per outcome, `ok N` or `ERROR-NAME N`.
    static let showFlood = #"""
        import os
        import sys
        import time
        from gi.repository import Gio, GLib

        address, connections, outstanding, descriptors, seconds, total = (
            sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]))
        NAME, PATH, IFACE = "org.keyboardadapter.Watcher", "/org/keyboardadapter/Watcher", "org.keyboardadapter.Watcher2"
        null = os.open("/dev/null", os.O_RDONLY)
        outcomes, state = {}, {"sent": 0, "answered": 0}
        loop = GLib.MainLoop()
        end = time.monotonic() + seconds

        def fds():
            if descriptors == 0:
                return None
            return Gio.UnixFDList.new_from_array([os.dup(null) for _ in range(descriptors)])

        def send(bus):
            if time.monotonic() >= end or state["sent"] >= total:
                if state["answered"] == state["sent"]:
                    loop.quit()
                return
            state["sent"] += 1
            bus.call_with_unix_fd_list(NAME, PATH, IFACE, "Show", None, None, Gio.DBusCallFlags.NONE, 25000, fds(),
                                       None, done, bus)

        def done(bus, result, _):
            state["answered"] += 1
            try:
                bus.call_with_unix_fd_list_finish(result)
                key = "ok"
            except GLib.Error as error:
                key = Gio.DBusError.get_remote_error(error) or error.message
            outcomes[key] = outcomes.get(key, 0) + 1
            send(bus)

        buses = [Gio.DBusConnection.new_for_address_sync(
            address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None, None) for _ in range(connections)]
        for bus in buses:
            for _ in range(outstanding):
                send(bus)
        GLib.timeout_add(int(seconds * 1000) + 30000, loop.quit)
        loop.run()
        print("sent", state["sent"], flush=True)
        for key, count in sorted(outcomes.items()):
            print(key, count, flush=True)
        """#

    /// The outcomes `showFlood` printed, by name.
    static func outcomes(_ output: String) -> [String: Int] {
        var found: [String: Int] = [:]
        for line in output.split(separator: "\n") {
            let words = line.split(separator: " ")
            if words.count >= 2, let count = Int(words.last!) {
                found[words.dropLast().joined(separator: " ")] = count
            }
        }
        return found
    }

    @Test(
        "Show calls carrying 16 descriptors each under a limit of 1 024 open files: refused by the bus, the service and its subscriber go on"
    )
    func descriptorFlood() throws {
        guard try Programs.ready(SessionServiceTests.programs + ["/usr/bin/python3", "prlimit"]) else { return }
        let world = try SessionServiceTests.World(idleExit: "30")
        defer { world.stop() }
        let env = world.environment
        let service = try ChildProcess(
            "prlimit", ["--nofile=1024:1024", Kbwatch.path, "--serve", "--idle-exit", "2"], environment: env)
        defer { service.stop() }
        try world.bus.waitForName("org.keyboardadapter.Watcher")
        let subscriber = try Kbwatch.start(["--json", "--from-service"], environment: env)
        defer { subscriber.stop() }
        let keyboard = try world.session.start("xvkbd", ["-geometry", "600x200+100+500"])
        defer { keyboard.stop() }
        try Wait.require("didShow (\(subscriber.log))", timeout: 15) { subscriber.log.contains(#""event":"didShow""#) }
        let script = world.session.directory + "/show-flood.py"
        try Self.showFlood.write(toFile: script, atomically: true, encoding: .utf8)

        // The control: 400 Show calls without descriptors, 256 at once.
        let control = try Programs.run(
            "/usr/bin/python3", [script, world.bus.address, "1", "256", "0", "60", "400"], timeout: 90)
        let controlOutcomes = Self.outcomes(control.output)
        #expect(controlOutcomes["sent"] == 400, "\(control.output)")
        #expect(service.isRunning && subscriber.isRunning, "\(service.log)\n\(subscriber.log)")
        print("control, no descriptors:", controlOutcomes.sorted { $0.key < $1.key })

        // The attack: the same with 16 descriptors each.
        let attack = try Programs.run(
            "/usr/bin/python3", [script, world.bus.address, "1", "256", "16", "60", "400"], timeout: 90)
        let attackOutcomes = Self.outcomes(attack.output)
        print("attack, 16 descriptors each:", attackOutcomes.sorted { $0.key < $1.key })
        Thread.sleep(forTimeInterval: 1)
        #expect(service.isRunning, "the service ended: \(service.log)")
        #expect(subscriber.isRunning && !subscriber.log.contains("went away"), "\(subscriber.log)")
        // None reached the service: each was refused before anything held it.
        #expect(attackOutcomes["ok"] == nil, "\(attack.output)")
        #expect(attackOutcomes["org.freedesktop.DBus.Error.NotSupported", default: 0] > 0, "\(attack.output)")
        for outcome in attackOutcomes.keys where outcome != "sent" {
            #expect(outcome.hasPrefix("org.freedesktop.DBus.Error."), "reached the service: \(attack.output)")
        }
        let state = try Kbwatch.run(["--from-service", "--state", "--json"], environment: env, timeout: 10)
        #expect(state.status == 0, "the service answers with the keyboard up: \(state.stderr)")
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(service.pid)/fd"))?.count
        print("the service's open descriptors after the attack:", descriptors ?? -1)
    }
}
