import Foundation
import KeyboardAdapterCore
import TestSupport
import Testing
import X11Adapter

/// One test's world: its own X server (and window manager), the backend under test connected to
/// it, and the sink that turns observations into events.
final class Harness {
    let session: X11Session
    let backend: X11Backend
    let sink: TrackingSink
    /// The loop the backend runs on, once started.
    private(set) var running: BackendLoop?

    /// Starts a server (with openbox when asked) and the backend on it. Returns nil, after
    /// printing why, when a needed program is missing outside CI.
    static func make(
        openbox: Bool, programs: [String], rules: KeyboardRules = .builtIn, startBackend: Bool = true,
        server: X11Session.Server = .xvfb, width: Int = 1280, height: Int = 800, settleInterval: Double = 0.05,
        setUp: (X11Session) throws -> Void = { _ in }
    ) throws -> Harness? {
        let serverProgram = server == .xvfb ? "Xvfb" : "Xorg"
        let needed = [serverProgram, "xdotool", "xwininfo"] + (openbox ? ["openbox"] : []) + programs
        guard try Programs.ready(needed) else { return nil }
        let session = try X11Session(width: width, height: height, server: server)
        try setUp(session)
        if openbox { try session.startWindowManager() }
        let harness = Harness(session: session, rules: rules, settleInterval: settleInterval)
        if startBackend { try harness.startBackend() }
        return harness
    }

    private init(session: X11Session, rules: KeyboardRules, settleInterval: Double) {
        self.session = session
        backend = X11Backend(displayName: session.display, rules: rules)
        sink = TrackingSink(backendName: "x11", settleInterval: settleInterval)
    }

    /// Starts the backend on a loop of its own, delivering to the sink.
    func startBackend() throws { running = try BackendLoop(backend, sink: sink) }

    /// Stops the backend and its loop. Idempotent.
    func stopBackend() { running?.stop() }

    /// Tells the running backend which app's keyboards count as local.
    func setAppIdentity(_ identity: AppIdentity) { running?.setAppIdentity(identity) }

    deinit {
        running?.stop()
        session.stop()
        // What the backend and the tracker made of the test, for the test log.
        print("updates on \(session.display):\n" + describe(sink.updates))
    }

    /// Asserts that `update`'s end frame is exactly what the keyboard covers as `xwininfo` reports
    /// it: its window manager's frame window (border included) where one frames it, else its
    /// client window as `xwininfo -id` has it; and that the update's window frame is the client
    /// window where the two differ, and nil where they do not.
    func expectFrameMatchesServer(_ update: KeyboardUpdate, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let window = try windowID(update.keyboard)
        guard let info = try session.xwininfo(window) else {
            Issue.record("xwininfo found no window \(update.keyboard.id)", sourceLocation: sourceLocation)
            return
        }
        let client = Rect(x: info.x, y: info.y, width: info.width, height: info.height)
        guard try session.frameWindow(of: window) != nil else {
            #expect(
                update.endFrame == client && update.windowFrame == nil,
                "\(update.event) frame vs xwininfo -id \(update.keyboard.id)", sourceLocation: sourceLocation)
            return
        }
        guard let outer = try session.xwininfoCovered(window) else {
            Issue.record("xwininfo found no frame around \(update.keyboard.id)", sourceLocation: sourceLocation)
            return
        }
        let covered = Rect(x: outer.x, y: outer.y, width: outer.width, height: outer.height)
        #expect(
            update.endFrame == covered,
            "\(update.event) frame vs xwininfo of the frame around \(update.keyboard.id)",
            sourceLocation: sourceLocation)
        #expect(
            update.windowFrame == (covered == client ? nil : client),
            "\(update.event) window frame vs xwininfo -id \(update.keyboard.id)", sourceLocation: sourceLocation)
    }

    /// One step of a scenario: runs `action`, waits for the updates it causes to end with
    /// `expected` (and `quiet` seconds longer, for anything extra to show up), and expects them to
    /// be exactly `expected`. The end frame of
    /// a final show or frame change must equal `xwininfo`'s geometry of the keyboard's window.
    @discardableResult
    func step(
        _ what: String, expecting expected: [KeyboardEvent], timeout: Double = 10, quiet: Double = 0.3,
        sourceLocation: SourceLocation = #_sourceLocation, _ action: () throws -> Void
    ) throws -> [KeyboardUpdate] {
        let mark = sink.mark
        try action()
        let updates = try sink.waitForEvents(expected, since: mark, what, timeout: timeout, quiet: quiet)
        #expect(events(updates) == expected, "\(what):\n\(describe(updates))", sourceLocation: sourceLocation)
        if let last = updates.last, last.isVisible {
            try expectFrameMatchesServer(last, sourceLocation: sourceLocation)
        }
        return updates
    }

    /// The single keyboard seen so far (every update names the same one).
    func onlyKeyboard() throws -> KeyboardIdentity {
        let ids = Set(sink.updates.map(\.keyboard.id))
        guard ids.count == 1, let first = sink.updates.first else {
            throw TestFailure("expected one keyboard, saw \(ids.sorted())")
        }
        return first.keyboard
    }
}

/// The events of a list of updates.
func events(_ updates: [KeyboardUpdate]) -> [KeyboardEvent] { updates.map(\.event) }

/// The X window id in a keyboard id such as `x11:0x1c00003`.
func windowID(_ keyboard: KeyboardIdentity) throws -> UInt {
    guard keyboard.id.hasPrefix("x11:0x"), let id = UInt(keyboard.id.dropFirst(6), radix: 16) else {
        throw TestFailure("not an X11 keyboard id: \(keyboard.id)")
    }
    return id
}
