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
    /// calls were sent; prints `sent N`, then one line per outcome, `ok N` or `ERROR-NAME N`. With
    /// a seventh argument, a unique name, the calls go to that connection instead (`Take` of an
    /// interface nobody serves, at `/`).
    static let showFlood = #"""
        import os
        import sys
        import time
        from gi.repository import Gio, GLib

        address, connections, outstanding, descriptors, seconds, total = (
            sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]))
        NAME, PATH, IFACE, MEMBER = (
            ("org.keyboardadapter.Watcher", "/org/keyboardadapter/Watcher", "org.keyboardadapter.Watcher2", "Show")
            if len(sys.argv) < 8 else (sys.argv[7], "/", "org.example.Flood", "Take"))
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
            bus.call_with_unix_fd_list(NAME, PATH, IFACE, MEMBER, None, None, Gio.DBusCallFlags.NONE, 25000, fds(),
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

    /// An app that subscribes on the bus at `argv[1]` naming the window `argv[2]` (hex) and the
    /// process `argv[3]` as its own, and prints `subscribed` (or `refused NAME MESSAGE`), then
    /// `EVENT LOCAL` for each event as ``SandboxedSubscriberTests/subscriberSignals`` prints it.
    static let namingApp = #"""
        import sys
        from gi.repository import Gio, GLib

        bus = Gio.DBusConnection.new_for_address_sync(
            sys.argv[1], Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None, None)
        \#(namingAppBody)
        """#

    /// What ``namingApp`` does once it has its connection `bus`.
    static let namingAppBody = #"""
        NAME, PATH, IFACE, MEMBER = (
            ("org.keyboardadapter.Watcher", "/org/keyboardadapter/Watcher", "org.keyboardadapter.Watcher2", "Show")
            if len(sys.argv) < 8 else (sys.argv[7], "/", "org.example.Flood", "Take"))
        \#(SandboxedSubscriberTests.subscriberSignals)
        options = {"window_ids": GLib.Variant("at", [int(sys.argv[2], 16)]), "pids": GLib.Variant("au", [int(sys.argv[3])])}
        try:
            bus.call_sync(NAME, PATH, IFACE, "Subscribe", GLib.Variant("(a{sv})", (options,)), None,
                          Gio.DBusCallFlags.NONE, 25000, None)
            print("subscribed", flush=True)
        except GLib.Error as error:
            print("refused", Gio.DBusError.get_remote_error(error), error.message, flush=True)
        GLib.MainLoop().run()
        """#

    /// ``namingApp`` on a connection its parent made (the bus takes the parent's pid as the
    /// connection's) and left to it on exiting: the bus's pid names a process gone.
    static let orphanedApp = #"""
        import os
        import socket
        import sys
        import time

        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(sys.argv[1][len("unix:path="):])
        parent = os.getpid()
        if os.fork() != 0:
            os._exit(0)
        while os.getppid() == parent:
            time.sleep(0.01)
        print("orphan", os.getpid(), flush=True)
        from gi.repository import Gio, GLib
        stream = Gio.Socket.new_from_fd(connection.detach()).connection_factory_create_connection()
        bus = Gio.DBusConnection.new_sync(
            stream, None, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None, None)
        \#(namingAppBody)
        """#

    /// A sandbox of bubblewrap's with `/.flatpak-info` bound from `info` when there is one: the
    /// host's /usr and /etc, its own pid namespace, `shared` (where the bus socket is) bound in.
    static func sandbox(info: String?, shared: String, _ command: [String]) -> [String] {
        [
            "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
            "--symlink", "usr/bin", "/bin", "--ro-bind", "/etc", "/etc", "--proc", "/proc", "--dev", "/dev",
            "--bind", shared, shared, "--ro-bind-try", "/tmp/.X11-unix", "/tmp/.X11-unix",
        ] + (info.map { ["--ro-bind", $0, "/.flatpak-info"] } ?? []) + ["--unshare-pid", "--die-with-parent", "--"]
            + command
    }

    /// The lowest descriptor number process `pid` does not use: with its limit of open files set
    /// to it, every file it opens fails (EMFILE).
    static func lowestFreeDescriptor(of pid: Int32) throws -> Int {
        let used = Set(
            try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap { Int($0) })
        return (0...).first { !used.contains($0) }!
    }

    @Test(
        "a caller whose sandbox cannot be established is trusted with nothing: descriptors exhausted, a [Runtime]-only or oversized /.flatpak-info, bubblewrap without one; the host and a Flatpak app as controls (on Debian 13's bus, callers pinned by its ProcessFD)",
        arguments: [Stack.debian12, .debian13])
    func failsClosed(bus stack: Stack) throws {
        guard try Programs.ready(SessionServiceTests.programs + ["/usr/bin/python3", "bwrap", "prlimit"]),
            try Userland.ready(stack, ["dbus-daemon"])
        else {
            return
        }
        let world = try SessionServiceTests.World(idleExit: "30", stack: stack)
        defer { world.stop() }
        let env = world.environment
        let directory = world.session.directory
        let service = try Kbwatch.start(
            ["--serve", "--stay", "--max-subscribers-per-client", "5"], environment: env)
        defer { service.stop() }
        try world.bus.waitForName("org.keyboardadapter.Watcher")
        let script = directory + "/naming-app.py"
        try Self.namingApp.write(toFile: script, atomically: true, encoding: .utf8)
        let appID = "org.test.App"
        let flatpak = directory + "/flatpak-info"
        try "[Application]\nname=\(appID)\n".write(toFile: flatpak, atomically: true, encoding: .utf8)
        let runtimeOnly = directory + "/runtime-only-info"
        try "[Runtime]\nruntime=runtime/org.test.Platform/x86_64/1\n".write(
            toFile: runtimeOnly, atomically: true, encoding: .utf8)
        let oversized = directory + "/oversized-info"
        try ("[Application]\nname=\(appID)\n" + String(repeating: "#\n", count: 40 * 1024)).write(
            toFile: oversized, atomically: true, encoding: .utf8)
        let mineWindow = try #require(world.mineWindow)
        let named = [script, world.bus.address, String(mineWindow, radix: 16), String(world.mine.pid)]

        func app(_ name: String, info: String?, sandboxed: Bool = true) throws -> ChildProcess {
            let process =
                sandboxed
                ? try world.session.start(
                    "bwrap", Self.sandbox(info: info, shared: directory, ["/usr/bin/python3"] + named))
                : try world.session.start("/usr/bin/python3", named)
            try Wait.require("\(name) to be answered (\(process.log))", timeout: 20) {
                process.log.contains("subscribed") || process.log.contains("refused")
            }
            return process
        }
        // Controls: the host names the focused window's process (its own user's: it counts); the
        // Flatpak app is judged by its sandbox, and its share is one subscription.
        let host = try app("the host app", info: nil, sandboxed: false)
        defer { host.stop() }
        let flatpakApp = try app("the Flatpak app", info: flatpak)
        defer { flatpakApp.stop() }
        var more: [ChildProcess] = []
        defer { for process in more { process.stop() } }
        for index in 2...6 { more.append(try app("the Flatpak app's connection \(index)", info: flatpak)) }
        #expect(more.dropLast().allSatisfy { $0.log.contains("subscribed") }, "\(more.map(\.log))")
        #expect(more.last!.log.contains("app \(appID) has 5 subscriptions already"), "\(more.last!.log)")
        let runtimeApp = try app("the [Runtime]-only app", info: runtimeOnly)
        defer { runtimeApp.stop() }
        let oversizedApp = try app("the oversized app", info: oversized)
        defer { oversizedApp.stop() }
        let bareApp = try app("bubblewrap without /.flatpak-info", info: nil)
        defer { bareApp.stop() }
        // Outside any sandbox, on a connection whose process has gone.
        let orphanScript = directory + "/orphaned-app.py"
        try Self.orphanedApp.write(toFile: orphanScript, atomically: true, encoding: .utf8)
        let orphanLauncher = try world.session.start("/usr/bin/python3", [orphanScript] + named.dropFirst())
        try Wait.require("the orphaned app to be answered (\(orphanLauncher.log))", timeout: 20) {
            orphanLauncher.log.contains("subscribed") || orphanLauncher.log.contains("refused")
        }
        let orphan = try #require(
            orphanLauncher.log.firstMatch(of: /orphan (\d+)/).flatMap { Int32($0.1) }, "\(orphanLauncher.log)")
        defer { kill(orphan, SIGKILL) }
        // The app's next connection while every file the service opens fails (EMFILE).
        let free = try Self.lowestFreeDescriptor(of: service.pid)
        // Its soft limit only: lowering the hard one could not be undone without CAP_SYS_RESOURCE.
        let (limited, _) = try Programs.run("prlimit", ["--pid", String(service.pid), "--nofile=\(free):"])
        #expect(limited == 0)
        let exhausted = try app("the Flatpak app's connection while the service has no descriptor", info: flatpak)
        defer { exhausted.stop() }
        let (restored, _) = try Programs.run("prlimit", ["--pid", String(service.pid), "--nofile=1024:"])
        #expect(restored == 0)
        // The callers of unknown sandbox share 5 places: the sixth is refused.
        let sixth = try app("a sixth caller of unknown sandbox", info: nil)
        defer { sixth.stop() }
        #expect(sixth.log.contains("any caller of unknown sandbox has 5 subscriptions already"), "\(sixth.log)")

        let keyboard = try world.session.start("xvkbd", ["-geometry", "600x200+100+500"])
        defer { keyboard.stop() }
        // Only the host's named process makes the focused window its own.
        let apps = [
            ("host", host, true), ("flatpak", flatpakApp, false), ("runtime-only", runtimeApp, false),
            ("oversized", oversizedApp, false), ("bubblewrap", bareApp, false), ("exhausted", exhausted, false),
            ("orphaned", orphanLauncher, false),
        ]
        for (name, process, local) in apps {
            try Wait.require("\(name)'s didShow (\(process.log))", timeout: 15) { process.log.contains("didShow") }
            print("\(name):", process.log.split(separator: "\n").joined(separator: " | "))
            #expect(process.log.contains("subscribed"), "\(name): \(process.log)")
            #expect(process.log.contains("didShow True") == local, "\(name): \(process.log)")
        }
        #expect(service.isRunning, "\(service.log)")
        print("the service's log:", service.log)
        #expect(service.log.contains("trusted with nothing"), "\(service.log)")
    }

    /// ``namingApp`` on a connection made by a process whose pid is then taken by another, on the
    /// bus at `argv[1]`, as `argv[4]` says: `live`, no reuse (a control: the connecting process
    /// itself calls, GetState then Subscribe); `after`, the connecting process (a child of this
    /// one's) leaves the connection to its own child and exits, is reaped here, the connection
    /// calls GetState, then a new process outside any sandbox is made with its pid (the kernel's
    /// `ns_last_pid` set just below it, as root), then it subscribes; `before`, the same with the
    /// pid taken after the connection said Hello but before its first call; `unnamed`, the same
    /// with the pid taken before the connection said Hello. Prints `reused PID BY` (BY the new
    /// process's pid, equal to PID when the reuse was made) and `orphan PID`.
    static let reusedPidApp = #"""
        import fcntl
        import os
        import socket
        import sys
        import time

        mode = sys.argv[4]

        def take(pid):
            # One taker at a time (the tests that do this may run side by side).
            with open("/tmp/keyboard-adapter-ns-last-pid.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                for _ in range(1000):
                    with open("/proc/sys/kernel/ns_last_pid", "w") as last:
                        last.write(str(pid - 1))
                    child = os.fork()
                    if child == 0:
                        os.execv("/bin/sleep", ["sleep", "600"])
                    if child == pid:
                        return child
                    os.kill(child, 9)
                    os.waitpid(child, 0)
            return 0

        if mode == "live":
            connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            connection.connect(sys.argv[1][len("unix:path="):])
            connecting = os.getpid()
        else:
            ready, told = os.pipe()
            connecting = os.fork()
            if connecting == 0:
                connecting = os.getpid()
                connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                connection.connect(sys.argv[1][len("unix:path="):])
                if os.fork() != 0:
                    os._exit(0)
                os.close(told)
                os.read(ready, 1)
            else:
                try:
                    os.waitpid(connecting, 0)
                except ChildProcessError:
                    pass
                while os.path.exists(f"/proc/{connecting}"):
                    time.sleep(0.01)
                os.write(told, b"x")
                time.sleep(600)
                os._exit(0)
        print("orphan", os.getpid(), flush=True)
        from gi.repository import Gio, GLib
        by = connecting if mode == "live" else 0
        if mode == "unnamed":
            by = take(connecting)
            time.sleep(0.05)
        stream = Gio.Socket.new_from_fd(connection.detach()).connection_factory_create_connection()
        bus = Gio.DBusConnection.new_sync(
            stream, None, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None, None)
        if mode == "before":
            time.sleep(0.05)
            by = take(connecting)
            time.sleep(0.05)
        bus.call_sync("org.keyboardadapter.Watcher", "/org/keyboardadapter/Watcher", "org.keyboardadapter.Watcher2",
                      "GetState", None, None, Gio.DBusCallFlags.NONE, 25000, None)
        time.sleep(0.05)
        if mode == "after":
            by = take(connecting)
        print("reused", connecting, by, flush=True)
        \#(namingAppBody)
        """#

    @Test(
        "a connection whose process ended and whose pid a later process took (real pid reuse through ns_last_pid): trusted with nothing when the new process started after the connection joined the bus (its Hello); the connecting process itself as a control"
    )
    func reusedPid() throws {
        guard try Programs.ready(SessionServiceTests.programs + ["/usr/bin/python3", "/bin/sleep"]) else { return }
        guard access("/proc/sys/kernel/ns_last_pid", W_OK) == 0 else {
            print("skipped: /proc/sys/kernel/ns_last_pid is not writable (the test makes pid reuse as root)")
            return
        }
        let world = try SessionServiceTests.World(idleExit: "30")
        defer { world.stop() }
        let env = world.environment
        let directory = world.session.directory
        let service = try Kbwatch.start(["--serve", "--stay"], environment: env)
        defer { service.stop() }
        try world.bus.waitForName("org.keyboardadapter.Watcher")
        let script = directory + "/reused-pid-app.py"
        try Self.reusedPidApp.write(toFile: script, atomically: true, encoding: .utf8)

        let apps = try ReusedPidApps(world: world, script: script)
        defer { apps.stop() }

        let keyboard = try world.session.start("xvkbd", ["-geometry", "600x200+100+500"])
        defer { keyboard.stop() }
        // The connecting process itself names the focused window's process: it counts. A process
        // that took the pid after the connection joined the bus (its Hello) is not the one that
        // made it. One that took it before the Hello is not told from it (what the service cannot
        // see).
        try apps.expectLocal(["live": true, "after": false, "before": false, "unnamed": true])
        #expect(service.isRunning, "\(service.log)")
        print("the service's log:", service.log)
        #expect(
            service.log.components(separatedBy: "started after the service first heard of its connection").count == 3,
            "\(service.log)")
        #expect(service.log.components(separatedBy: "trusted with nothing").count == 3, "\(service.log)")
    }

    @Test(
        "on Debian 13's dbus-daemon the service pins a caller by the bus's ProcessFD: a pid taken before or after the connection's Hello or its first call is told apart; a flood of calls carrying descriptors to the connection that takes them, under a limit of 1 024 open files, leaves it working"
    )
    func reusedPidProcessFD() throws {
        guard try Programs.ready(SessionServiceTests.programs + ["/usr/bin/python3", "/bin/sleep", "prlimit"]),
            try Userland.ready(.debian13, ["dbus-daemon"])
        else { return }
        guard access("/proc/sys/kernel/ns_last_pid", W_OK) == 0 else {
            print("skipped: /proc/sys/kernel/ns_last_pid is not writable (the test makes pid reuse as root)")
            return
        }
        let world = try SessionServiceTests.World(idleExit: "30", stack: .debian13)
        defer { world.stop() }
        let env = world.environment
        let directory = world.session.directory
        let service = try world.session.start(
            "prlimit", ["--nofile=1024:1024", Kbwatch.path, "--serve", "--stay"], environment: env)
        defer { service.stop() }
        try world.bus.waitForName("org.keyboardadapter.Watcher")
        let script = directory + "/reused-pid-app.py"
        try Self.reusedPidApp.write(toFile: script, atomically: true, encoding: .utf8)

        // The service's connections besides the one owning its name (the one asking who callers
        // are among them): calls carrying 16 descriptors each to each, from 4 connections keeping
        // 64 unanswered each, and calls carrying 64 from 2 keeping 4 each (more than the bus takes
        // in one message: it closes their connection), for 10 s.
        let owner = try #require(try world.bus.owner(of: "org.keyboardadapter.Watcher"))
        let names = try world.bus.uniqueNames(of: service.pid).filter { $0 != owner }
        print("the service's other connections:", names)
        #expect(!names.isEmpty)
        let floodScript = directory + "/descriptor-flood.py"
        try Self.showFlood.write(toFile: floodScript, atomically: true, encoding: .utf8)
        // No bound on the count: each floods for its 10 s.
        let floods = try names.flatMap { name in
            [
                try world.session.start(
                    "/usr/bin/python3", [floodScript, world.bus.address, "4", "64", "16", "10", "1000000000", name]),
                try world.session.start(
                    "/usr/bin/python3", [floodScript, world.bus.address, "2", "4", "64", "10", "1000000000", name]),
            ]
        }
        defer { for flood in floods { flood.stop() } }
        Thread.sleep(forTimeInterval: 2)
        let during = Date()
        let state = try Kbwatch.run(["--from-service", "--state", "--json"], environment: env, timeout: 30)
        print("--state during the flood:", Date().timeIntervalSince(during), "s, status", state.status)
        #expect(state.status == 1, "\(state.stderr)")
        for (name, flood) in zip(names.flatMap { [$0 + " (16 each)", $0 + " (64 each)"] }, floods) {
            try Wait.require("the flood to end", timeout: 60) { flood.log.contains("sent") }
            print("the flood to \(name):", flood.log.split(separator: "\n").joined(separator: " | "))
        }
        Thread.sleep(forTimeInterval: 0.5)
        // The connection that takes descriptors got them, and answered.
        #expect(floods.contains { $0.log.contains("org.freedesktop.DBus.Error.UnknownObject") })
        #expect(service.isRunning, "\(service.log)")
        #expect(!service.log.contains("broke"), "\(service.log)")
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(service.pid)/fd"))?.count
        print("the service's open descriptors after the flood:", descriptors ?? -1)

        let apps = try ReusedPidApps(world: world, script: script)
        defer { apps.stop() }

        let keyboard = try world.session.start("xvkbd", ["-geometry", "600x200+100+500"])
        defer { keyboard.stop() }
        // The bus's ProcessFD holds the process that connected: once it has ended, whoever has its
        // pid, the caller is trusted with nothing.
        try apps.expectLocal(["live": true, "after": false, "before": false, "unnamed": false])
        #expect(service.isRunning, "\(service.log)")
        print("the service's log:", service.log)
        #expect(
            service.log.components(separatedBy: "the bus's ProcessFD holds no process").count == 4, "\(service.log)")
    }

    @Test(
        "a FIFO at /.flatpak-info, of a subscriber and of the focused window's process: the service answers another client at once"
    )
    func fifoIdentity() throws {
        guard try Programs.ready(SessionServiceTests.programs + ["/usr/bin/python3", "bwrap", "mkfifo"]) else { return }
        let world = try SessionServiceTests.World(idleExit: "30")
        defer { world.stop() }
        let env = world.environment
        let directory = world.session.directory
        let service = try Kbwatch.start(["--serve", "--stay"], environment: env)
        defer { service.stop() }
        try world.bus.waitForName("org.keyboardadapter.Watcher")
        let script = directory + "/naming-app.py"
        try Self.namingApp.write(toFile: script, atomically: true, encoding: .utf8)
        let fifo = directory + "/fifo-info"
        #expect(mkfifo(fifo, 0o644) == 0)
        let flatpak = directory + "/flatpak-info"
        try "[Application]\nname=org.test.App\n".write(toFile: flatpak, atomically: true, encoding: .utf8)
        let mineWindow = try #require(world.mineWindow)
        let named = [
            "/usr/bin/python3", script, world.bus.address, String(mineWindow, radix: 16), String(world.mine.pid),
        ]

        // Control: a Flatpak app subscribes (its verdicts read the focused window's sandbox).
        let flatpakApp = try world.session.start("bwrap", Self.sandbox(info: flatpak, shared: directory, named))
        defer { flatpakApp.stop() }
        try Wait.require("the Flatpak app to subscribe (\(flatpakApp.log))", timeout: 20) {
            flatpakApp.log.contains("subscribed")
        }
        let before = Date()
        let control = try Kbwatch.run(["--from-service", "--state", "--json"], environment: env, timeout: 30)
        print("control --state:", Date().timeIntervalSince(before), "s, status", control.status)
        #expect(control.status == 1, "\(control.stderr)")

        // A subscriber whose /.flatpak-info is a FIFO nobody writes to.
        let fifoApp = try world.session.start("bwrap", Self.sandbox(info: fifo, shared: directory, named))
        defer { fifoApp.stop() }
        Thread.sleep(forTimeInterval: 1)
        let started = Date()
        let state = try Kbwatch.run(["--from-service", "--state", "--json"], environment: env, timeout: 30)
        let took = Date().timeIntervalSince(started)
        print("--state beside the FIFO subscriber:", took, "s, status", state.status, state.stderr)
        #expect(state.status == 1 && took < 2, "\(took) s: \(state.stderr)")
        try Wait.require("the FIFO app to be answered (\(fifoApp.log))", timeout: 20) {
            fifoApp.log.contains("subscribed") || fifoApp.log.contains("refused")
        }
        print("the FIFO app:", fifoApp.log)

        // A window made in a sandbox whose /.flatpak-info is a FIFO, focused when the keyboard shows.
        let window = try world.session.start(
            "bwrap",
            Self.sandbox(
                info: fifo, shared: directory, ["xmessage", "-name", "fifo", "-title", "fifo window", "fifo window"]))
        defer { window.stop() }
        let fifoWindow = try world.session.window(titled: "fifo window", of: window)
        try world.session.activate(fifoWindow, readBy: world.apps)
        let keyboard = try world.session.start("xvkbd", ["-geometry", "600x200+100+500"])
        defer { keyboard.stop() }
        try Wait.require("the Flatpak app's didShow (\(flatpakApp.log))", timeout: 15) {
            flatpakApp.log.contains("didShow")
        }
        #expect(flatpakApp.log.contains("didShow False"), "\(flatpakApp.log)")
        let shownStarted = Date()
        let shown = try Kbwatch.run(["--from-service", "--state", "--json"], environment: env, timeout: 30)
        let shownTook = Date().timeIntervalSince(shownStarted)
        print("--state with the FIFO window focused:", shownTook, "s, status", shown.status)
        #expect(shown.status == 0 && shownTook < 2, "\(shownTook) s: \(shown.stderr)")
        #expect(service.isRunning, "\(service.log)")
    }

    @Test(
        "one process with 8 connections floods Show for 20 s: another client's --state every 0.3 s is answered within 1 s"
    )
    func showFloodFromOneProcess() throws {
        guard try Programs.ready(SessionServiceTests.programs + ["/usr/bin/python3"]) else { return }
        let world = try SessionServiceTests.World(idleExit: "30")
        defer { world.stop() }
        let env = world.environment
        let service = try Kbwatch.start(["--serve", "--stay"], environment: env)
        defer { service.stop() }
        try world.bus.waitForName("org.keyboardadapter.Watcher")
        let keyboard = try world.session.start("xvkbd", ["-geometry", "600x200+100+500"])
        defer { keyboard.stop() }
        let script = world.session.directory + "/show-flood.py"
        try Self.showFlood.write(toFile: script, atomically: true, encoding: .utf8)

        /// `--state` every 0.3 s for `seconds`: how long each took, and the failures.
        func states(for seconds: Double) throws -> (times: [Double], failures: [String]) {
            var times: [Double] = []
            var failures: [String] = []
            let end = Date().addingTimeInterval(seconds)
            while Date() < end {
                let started = Date()
                let result = try Kbwatch.run(["--from-service", "--state", "--json"], environment: env, timeout: 40)
                times.append(Date().timeIntervalSince(started))
                if result.status != 0 { failures.append("status \(result.status): \(result.stderr)") }
                Thread.sleep(forTimeInterval: 0.3)
            }
            return (times, failures)
        }
        func summary(_ times: [Double]) -> String {
            let sorted = times.sorted()
            guard !sorted.isEmpty else { return "none" }
            return "\(sorted.count) calls, median \(sorted[sorted.count / 2]) s, max \(sorted.last!) s"
        }
        try Wait.require("the keyboard to be up", timeout: 15) {
            (try? Kbwatch.run(["--from-service", "--state", "--json"], environment: env, timeout: 10))?.status == 0
        }
        let control = try states(for: 5)
        print("control --state:", summary(control.times), control.failures.prefix(3))
        #expect(control.failures.isEmpty)

        let flood = try ChildProcess(
            "/usr/bin/python3", [script, world.bus.address, "8", "64", "0", "20", "100000000"], environment: env,
            directory: world.session.directory)
        defer { flood.stop() }
        Thread.sleep(forTimeInterval: 1)
        let during = try states(for: 18)
        print("--state under the flood:", summary(during.times), during.failures.prefix(3))
        #expect(during.failures.isEmpty, "\(during.failures.prefix(3))")
        #expect((during.times.max() ?? 99) < 1, "\(summary(during.times))")
        _ = flood.waitForExit(timeout: 60)
        print("the flood:", Self.outcomes(flood.log).sorted { $0.key < $1.key })
        #expect(service.isRunning, "\(service.log)")
    }

    @Test(
        "scripts/busfuzz, seed 1, 30 s: random calls, types, sizes, descriptors and connection churn; the service stays up and another client's GetState is answered within 1 s throughout"
    )
    func busFuzz() throws {
        guard try Programs.ready(SessionServiceTests.programs + ["/usr/bin/python3", "prlimit"]) else { return }
        let world = try SessionServiceTests.World(idleExit: "30")
        defer { world.stop() }
        let env = world.environment
        let service = try ChildProcess(
            "prlimit", ["--nofile=1024:1024", Kbwatch.path, "--serve", "--stay"], environment: env,
            directory: world.session.directory)
        defer { service.stop() }
        try world.bus.waitForName("org.keyboardadapter.Watcher")
        let keyboard = try world.session.start("xvkbd", ["-geometry", "600x200+100+500"])
        defer { keyboard.stop() }
        let fuzzer = SchemaValidator.repository.appendingPathComponent("scripts/busfuzz").path
        let (status, output) = try Programs.run(
            "/bin/sh",
            [
                "-c", "exec \"$@\" 2>&1", "sh", "/usr/bin/python3", fuzzer, "--seed", "1", "--seconds", "30",
                "--address", world.bus.address,
            ],
            timeout: 150)
        print(output)
        #expect(status == 0, "\(output)\n\(service.log)")
        #expect(service.isRunning, "\(service.log)")
    }
}

/// The four apps of the pid-reuse tests (`BusTrustTests.reusedPidApp`), each subscribed naming the
/// focused window's process as its own: `live`, the connecting process itself; `after`, `before`
/// and `unnamed`, connections whose process ended and whose pid another process took. It ends
/// them and the processes that took the pids.
final class ReusedPidApps {
    private var apps: [(name: String, process: ChildProcess)] = []
    /// The pid takers and the orphaned connections' holders, ended by ``stop()``.
    private var pids: [Int32] = []

    /// Starts the four apps, one after the other, each once the service has answered it.
    init(world: SessionServiceTests.World, script: String) throws {
        let mineWindow = try #require(world.mineWindow)
        do {
            for mode in ["live", "after", "before", "unnamed"] {
                let process = try world.session.start(
                    "/usr/bin/python3",
                    [script, world.bus.address, String(mineWindow, radix: 16), String(world.mine.pid), mode])
                apps.append((mode, process))
                let answered = Wait.until(timeout: 20) {
                    process.log.contains("subscribed") || process.log.contains("refused")
                }
                try #require(answered, "the \(mode) app was not answered within 20 s: \(process.log)")
                let reuse = try #require(process.log.firstMatch(of: /reused (\d+) (\d+)/), "\(process.log)")
                let (connecting, by) = (Int32(reuse.1)!, Int32(reuse.2)!)
                if mode != "live", let orphan = process.log.firstMatch(of: /orphan (\d+)/).flatMap({ Int32($0.1) }) {
                    pids += [by, orphan]
                }
                #expect(connecting == by, "the pid \(connecting) could not be taken: \(process.log)")
            }
        } catch {
            stop()
            throw error
        }
    }

    /// Waits for each app's didShow and expects its verdict, `local` true or not, by its name.
    func expectLocal(_ expected: [String: Bool]) throws {
        for (name, process) in apps {
            try Wait.require("\(name)'s didShow (\(process.log))", timeout: 15) { process.log.contains("didShow") }
            print("\(name):", process.log.split(separator: "\n").joined(separator: " | "))
            #expect(process.log.contains("subscribed"), "\(name): \(process.log)")
            #expect(process.log.contains("didShow True") == expected[name], "\(name): \(process.log)")
        }
    }

    /// Ends the apps, then the processes that took the pids.
    func stop() {
        for (_, process) in apps.reversed() { process.stop() }
        for pid in pids { kill(pid, SIGKILL) }
        pids.removeAll()
    }
}
