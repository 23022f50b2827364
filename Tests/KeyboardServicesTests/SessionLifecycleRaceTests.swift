import Foundation
import KeyboardAdapterCore
import KeyboardAdapterTesting
@_spi(BackendRun) import KeyboardBackendInterface
import KeyboardSessionService
import Synchronization
import TestSupport
import Testing

/// The session service's and its client's life against stops and starts from other threads, on a
/// private session bus: a stop during a start is not lost, and a client watched again lets go of
/// its first watch only after its lock.
@Suite("session service and client lifecycles", .serialized)
struct SessionLifecycleRaceTests {
    /// A private bus in a directory of its own.
    static func privateBus() throws -> (bus: SessionBus, directory: String) {
        var template = Array((NSTemporaryDirectory() + "kbd-lifecycle-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
        let directory = String(cString: made)
        try FileManager.default.createDirectory(atPath: directory + "/home", withIntermediateDirectories: true)
        return (try SessionBus(directory: directory, home: directory + "/home"), directory)
    }

    /// How many of this process's threads bear `name`.
    static func threads(named name: String) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.count { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) == name
        }
    }

    @Test("a stop while the service starts leaves it stopped, its name free on the bus")
    func stopDuringStart() throws {
        guard try Programs.ready(["dbus-daemon"]) else { return }
        let (bus, directory) = try Self.privateBus()
        defer {
            kill(bus.process.pid, SIGCONT)
            bus.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
        let manager = KeyboardManager(backend: InMemoryBackend())
        try manager.start()
        defer { manager.stop() }
        let service = KeyboardSessionService(
            manager: manager,
            configuration: .init(idleExit: nil, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], log: { _ in }))
        defer { service.stop() }
        let before = Self.threads(named: "kbd-service")
        // The bus stopped: the start connects and waits for it, its loop's thread made.
        kill(bus.process.pid, SIGSTOP)
        let started = DispatchSemaphore(value: 0)
        Thread {
            try? service.start(onIdle: {})
            started.signal()
        }.start()
        try Wait.require("the service's loop", timeout: 10) { Self.threads(named: "kbd-service") > before }
        service.stop()
        kill(bus.process.pid, SIGCONT)
        #expect(started.wait(timeout: .now() + 30) == .success, "the start did not return")
        #expect(try !bus.hasOwner(SessionServiceNames.busName), "stopped during its start, the service still serves")
    }

    /// An object whose release calls `onRelease`, as an app's object released with a closure may.
    final class ReleaseReporter: Sendable {
        let onRelease: @Sendable () -> Void
        init(_ onRelease: @escaping @Sendable () -> Void) { self.onRelease = onRelease }
        deinit { onRelease() }
    }

    /// Where a watch's release finds the watch it stops.
    final class WatchSlot: Sendable {
        let watch = Mutex<SessionServiceWatch?>(nil)
    }

    @Test(
        "a client's watches are their callers': watching again stops nothing, and a watch whose release stops another returns"
    )
    func clientWatchedAgain() throws {
        guard try Programs.ready(["dbus-daemon"]) else { return }
        let (bus, directory) = try Self.privateBus()
        defer {
            bus.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        let manager = KeyboardManager(backend: InMemoryBackend())
        try manager.start()
        defer { manager.stop() }
        let service = KeyboardSessionService(
            manager: manager, configuration: .init(idleExit: nil, environment: environment, log: { _ in }))
        try service.start(onIdle: {})
        defer { service.stop() }
        let client = SessionServiceClient(environment: environment)
        let second = WatchSlot()
        let released = DispatchSemaphore(value: 0)
        // The first watch's closure holds the last reference to an object that stops the second
        // watch when released: when the first watch closes, on its loop's thread.
        let first = try client.watch(
            options: .init(caller: false),
            onReceive: { [reporter = ReleaseReporter { second.watch.withLock { $0 }?.stop() }] _ in _ = reporter },
            onEnd: { _ in })
        let again = try client.watch(
            options: .init(caller: false),
            onReceive: { [reporter = ReleaseReporter { released.signal() }] _ in _ = reporter }, onEnd: { _ in })
        second.watch.withLock { $0 = again }
        let stopped = DispatchSemaphore(value: 0)
        Thread {
            first.stop()
            stopped.signal()
        }.start()
        let returned = stopped.wait(timeout: .now() + 20) == .success
        #expect(returned, "the first watch's stop did not return: what it released could not stop the second")
        #expect(released.wait(timeout: .now() + 20) == .success, "the second watch was not stopped")
    }
}
