import Foundation
import KeyboardAdapterCore
import KeyboardServices
import Synchronization
import TestSupport
import Testing
import X11Adapter

/// One test's world: its own X server without a window manager, onboard on a session bus, and a
/// manager whose x11 backend is joined with onboard's service on that bus.
final class ServiceWorld: @unchecked Sendable {
    static let programs = ["Xvfb", "onboard", "dbus-daemon", "dbus-run-session", "dbus-send", "gsettings", "xwininfo"]
    static let floating: [Onboard.Setting] = Onboard.quiet + [("org.onboard.window", "docking-enabled", "false")]

    let session: X11Session
    let service: DBusKeyboardService
    let manager: KeyboardManager
    private let seen = Recorded()
    private var token: KeyboardSubscription?

    /// A server and a manager for onboard's service on `busAddress` (nil: no session bus).
    init(session: X11Session, busAddress: String?, settleInterval: Double = 0.05) {
        self.session = session
        service = DBusKeyboardService.onboard(
            environment: busAddress.map { ["DBUS_SESSION_BUS_ADDRESS": $0] } ?? [:])
        manager = KeyboardManager(
            backend: X11Backend(displayName: session.display, rules: .builtIn, services: [service]),
            configuration: .init(settleInterval: settleInterval))
        let seen = self.seen
        token = manager.onEvent(delivery: .immediate) { update in seen.list.withLock { $0.append(update) } }
    }

    deinit {
        manager.stop()
        print(
            "updates on \(session.display):\n"
                + updates.map { "\($0.event) \($0.keyboard) \($0.endFrame)" }.joined(separator: "\n"))
    }

    var updates: [KeyboardUpdate] { seen.list.withLock { $0 } }

    /// Runs `action` and waits for the updates after it to end with `expected`; returns them.
    @discardableResult
    func step(
        _ what: String, expecting expected: [KeyboardEvent], timeout: Double = 15,
        sourceLocation: SourceLocation = #_sourceLocation, _ action: () throws -> Void
    ) throws -> [KeyboardUpdate] {
        let mark = updates.count
        try action()
        try Wait.require("\(what): \(expected)", timeout: timeout) {
            Array(updates.dropFirst(mark).map(\.event).suffix(expected.count)) == expected
        }
        // Anything extra shows up now.
        Thread.sleep(forTimeInterval: 0.3)
        let after = Array(updates.dropFirst(mark))
        #expect(after.map(\.event) == expected, "\(what): \(after.map(\.event))", sourceLocation: sourceLocation)
        return after
    }

    /// Waits until the service says `predicate`.
    func waitForService(_ what: String, timeout: Double = 10, _ predicate: (KeyboardServiceState) -> Bool) throws {
        try Wait.require("onboard's service to say \(what) (it says \(service.state))", timeout: timeout) {
            predicate(service.state)
        }
    }
}

/// Updates as they were delivered, shared with the loop's thread.
final class Recorded: Sendable {
    let list = Mutex<[KeyboardUpdate]>([])
}

/// A private session bus with a peer on it: Python running `script`, which owns `name` there.
/// Both end when it is released.
final class PeerOnBus {
    /// Where the bus's socket and the peer's script are, for as long as the bus runs.
    let directory: RuntimeDirectory
    let bus: SessionBus
    let peer: ChildProcess

    /// Starts the bus and the peer in a runtime directory of its own (`prefix`), and waits until
    /// the peer owns `name`.
    init(_ script: String, owning name: String, prefix: String) throws {
        directory = try RuntimeDirectory(owner: (getuid(), getgid()), prefix: prefix)
        bus = try SessionBus(directory: directory.path, home: directory.home)
        do {
            peer = try ChildProcess(
                "/usr/bin/python3", [try directory.write("peer.py", script)],
                environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address],
                directory: directory.path)
            try bus.waitForName(name)
        } catch {
            bus.stop()
            throw error
        }
    }

    /// What a client of the bus needs.
    var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": bus.address] }

    deinit {
        peer.stop()
        bus.stop()
    }
}
