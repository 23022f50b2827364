import CWayland
import Glibc
import KeyboardAdapterCore
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One output as the Wayland backend sees it.
public struct WaylandOutputStatus: Sendable, Hashable, CustomStringConvertible {
    /// The output's name and global logical frame.
    public var output: Output
    /// Its usable area (the output minus every exclusive zone) in global logical pixels, once
    /// the probe has measured it.
    public var usableArea: Rect?

    /// Creates a status value.
    public init(output: Output, usableArea: Rect?) {
        self.output = output
        self.usableArea = usableArea
    }

    /// The output and its usable area.
    public var description: String { "\(output) usable \(usableArea.map(\.description) ?? "unknown")" }
}

/// The `wayland` backend: sees docked on-screen keyboards on compositors with wlr-layer-shell
/// (sway, phoc, Hyprland, river, cage, labwc) by watching each output's usable area shrink.
///
/// What it can tell, and what it cannot:
/// - Only docked keyboards (exclusive zone > 0) are seen; their frame is the reserved strip at
///   the output's edge (exclusive zone plus margin), reported as `.derived` geometry.
/// - Panels (swaybar) are told apart by a per-edge baseline: the smallest inset seen. A
///   keyboard already visible when watching starts counts as baseline until it first hides.
/// - Keyboard ids are `wayland:` + output name + edge; the keyboard program is not known.
/// - `isLocal` is left nil: the manager fills it from what the app says about its text input.
/// - The layout is the seat keyboard's (where one exists), else nil.
/// - Compositors without `zwlr_layer_shell_v1` (Weston, GNOME) are reported unavailable.
public final class WaylandBackend: KeyboardBackend {
    /// `wayland`.
    public let name = "wayland"
    /// Docking, outputs and layout; no own frames (only the reserved space), no floating keyboards.
    public let capabilities: BackendCapabilities = [.reportsDocking, .reportsOutputs, .reportsLayout]
    /// The socket given at creation (a name in `XDG_RUNTIME_DIR` or an absolute path), or nil
    /// for `WAYLAND_DISPLAY`.
    public let displayName: String?

    /// The connection of the current start; used on the loop's thread only.
    private let running = Mutex<WaylandConnection?>(nil)
    private let latestStatus = Mutex<[WaylandOutputStatus]>([])

    /// The registration that the `KeyboardAdapter` umbrella adds to the registry.
    public static let registration = BackendRegistry.Registration(
        name: "wayland", hint: BackendSessionHint(variables: ["WAYLAND_DISPLAY"], sessionType: "wayland", priority: 1),
        make: { WaylandBackend() })

    deinit { stop() }

    /// Creates a backend for the compositor at `display` (a socket name or an absolute path), or
    /// at `WAYLAND_DISPLAY` when nil. Nothing connects until `availability()` or `start(sink:)`.
    public init(display: String? = nil) {
        displayName = display
    }

    /// Connects briefly and checks that the compositor offers what the probe needs.
    public func availability() -> BackendAvailability {
        if displayName == nil, ProcessInfo.processInfo.environment["WAYLAND_DISPLAY"].map({ $0.isEmpty }) ?? true {
            return .unreachable(reason: "WAYLAND_DISPLAY is not set")
        }
        do {
            let session = try WaylandSession(display: displayName)
            defer { session.destroy() }
            if let missing = Self.missingInterface(session) {
                return .unavailable(reason: Self.unsupportedReason(missing: missing, session: session))
            }
            return .available(detail: "layer-shell probe on the compositor at \(session.connection.socketName)")
        } catch {
            return .unreachable(reason: error.description)
        }
    }

    private static func missingInterface(_ session: WaylandSession) -> String? {
        [WaylandSession.layerShellInterface, "wl_compositor"].first { !session.offers($0) }
    }

    private static func unsupportedReason(missing: String, session: WaylandSession) -> String {
        var reason =
            "compositor at \(session.connection.socketName) lacks \(missing); "
            + "on-screen keyboard geometry is not observable"
        if session.offers("zwp_input_panel_v1") {
            reason += " (its zwp_input_panel_v1 is private to the compositor's own input method)"
        }
        return reason
    }

    /// Connects, sets up one probe per output, and adds the connection to `loop`. Keyboards
    /// already docked now count as baseline (see the type's notes), so nothing is delivered at start.
    public func start(on loop: KeyboardRunLoop, sink: any ObservationSink) throws {
        try running.withLock { current in
            guard current == nil else { return }
            let session: WaylandSession
            do throws(WaylandError) {
                session = try WaylandSession(display: displayName)
            } catch {
                throw BackendFailure(backend: name, kind: .connectionLost, reason: error.description)
            }
            if let missing = Self.missingInterface(session) {
                let reason = Self.unsupportedReason(missing: missing, session: session)
                session.destroy()
                throw BackendFailure(backend: name, kind: .other, reason: reason)
            }
            session.onStatus = { [weak self] status in self?.latestStatus.withLock { $0 = status } }
            do throws(WaylandError) {
                try session.bind()
            } catch {
                session.destroy()
                throw BackendFailure(backend: name, kind: .connectionLost, reason: error.description)
            }
            latestStatus.withLock { $0 = session.status }
            session.deliver = { sink.deliver($0) }
            let connection = WaylandConnection(session: session, sink: sink, loop: loop, backendName: name)
            loop.add(connection)
            current = connection
        }
    }

    /// Removes the connection from the loop and disconnects. Idempotent.
    public func stop() {
        running.withLock { current in
            current?.close()
            current = nil
        }
    }

    /// The outputs and their usable areas as last measured (empty before `start`).
    public var outputs: [WaylandOutputStatus] { latestStatus.withLock { $0 } }

    /// The compositor, the protocols the probe uses, each output with its usable area (measured
    /// by a short-lived probe of its own), the seat's layout, and what cannot be seen.
    public func diagnose() -> [String] {
        let session: WaylandSession
        do throws(WaylandError) {
            session = try WaylandSession(display: displayName)
        } catch {
            return [error.description]
        }
        defer { session.destroy() }
        var lines = ["compositor at \(session.connection.socketName)"]
        let wanted = [
            WaylandSession.layerShellInterface, "wl_compositor", "xdg_wm_base", "zxdg_output_manager_v1",
            "wl_seat",
        ]
        lines.append(
            "protocols: "
                + wanted.map { "\($0) " + (session.offers($0) ? "found" : "missing") }
                .joined(separator: ", "))
        guard Self.missingInterface(session) == nil, (try? session.bind()) != nil else {
            return lines + ["on-screen keyboard geometry is not observable here"]
        }
        lines += session.status.map { "output \($0)" }
        lines.append("seat keyboard layout: " + (session.layout?.description ?? "none (no seat keyboard)"))
        lines.append(
            "sees docked keyboards only (exclusive zone > 0): the frame is the reserved strip; "
                + "floating keyboards and one already docked at start (until it first hides) are not seen")
        return lines
    }
}

/// The compositor connection as a run-loop source. Used on the loop's thread only.
private final class WaylandConnection: LoopSource, @unchecked Sendable {
    // @unchecked: created by `start` on the loop's thread and used there only; the backend keeps
    // it (under its mutex) just to close it from `stop`, which runs on that same thread.
    private var session: WaylandSession?
    private let sink: any ObservationSink
    private weak var loop: KeyboardRunLoop?
    private let backendName: String
    /// A read was readied and must be completed or cancelled.
    private var reading = false

    init(session: WaylandSession, sink: any ObservationSink, loop: KeyboardRunLoop, backendName: String) {
        self.session = session
        self.sink = sink
        self.loop = loop
        self.backendName = backendName
    }

    func prepareToWait() -> (descriptor: Int32, events: Int16) {
        guard let session else { return (-1, 0) }
        switch session.connection.prepareRead() {
        case .success(let events):
            reading = true
            return (session.connection.fileDescriptor, events)
        case .failure(let error):
            fail(error.description)
            return (-1, 0)
        }
    }

    func handle(events: Int16) {
        guard let session, reading else { return }
        reading = false
        do throws(WaylandError) {
            try session.connection.finishRead(events: events)
        } catch {
            fail(error.description)
        }
    }

    func close() {
        guard let session else { return }
        if reading { wl_display_cancel_read(session.connection.display) }
        reading = false
        loop?.remove(self)
        session.destroy()
        self.session = nil
    }

    private func fail(_ reason: String) {
        session?.hideAll()
        session?.deliver = nil
        close()
        sink.finish(failure: BackendFailure(backend: backendName, kind: .connectionLost, reason: reason))
    }
}
