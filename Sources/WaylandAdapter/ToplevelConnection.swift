import KeyboardBackendInterface
import WaylandClient

/// The foreign toplevels on a connection of their own. A compositor sends the whole list when the
/// manager is bound, and libwayland-server before 1.23 (Debian 12's) drops a client as soon as its
/// socket is full: a client with a few dozen long titles would cost the backend its connection, and
/// every keyboard with it, if the list came on the probes' connection. Here only the toplevels are
/// lost: the connection is made again ``retryDelay`` seconds later, and until it is back which
/// toplevel is activated is unknown. Lives on the loop's thread.
final class ToplevelConnection: LoopSource {
    /// Seconds between a lost connection and the next try.
    static let retryDelay = 5.0

    private let displayName: String?
    private let context: LoopContext
    private var display: WaylandDisplay?
    private var registry: Registry?
    private var toplevels: ForeignToplevels?
    private var source: DisplaySource?
    private var retryAt: Double?
    /// Why the last connection ended, if one did.
    private(set) var lostReason: String?

    /// Connects to `displayName` (as the backend's own connection does) and binds the manager;
    /// the list arrives as the loop reads it.
    init(displayName: String?, context: LoopContext) {
        self.displayName = displayName
        self.context = context
        context.add(self)
        connect()
    }

    /// What the compositor says has the focus; unknown while the connection is down.
    var activation: ForeignToplevels.Activation { toplevels?.activated ?? .unknown }

    private func connect() {
        do throws(WaylandError) {
            let connection = try WaylandDisplay(name: displayName)
            let registry = Registry(display: connection.display)
            self.registry = registry
            display = connection
            try connection.roundtrip()
            guard let manager = Self.bindManager(registry) else {
                lost("the compositor no longer offers \(WaylandSession.toplevelsInterface)")
                return
            }
            toplevels = manager
            source = DisplaySource(display: connection, context: context) { [unowned self] reason in lost(reason) }
        } catch {
            lost(error.description)
        }
    }

    private func lost(_ reason: String) {
        release()
        lostReason = reason
        retryAt = context.clock.now() + Self.retryDelay
    }

    private func release() {
        source?.close()
        source = nil
        toplevels?.destroy()
        toplevels = nil
        registry?.destroy()
        registry = nil
        display = nil
    }

    var deadline: Double? { retryAt }

    func deadlineReached() {
        retryAt = nil
        connect()
    }

    /// Releases the connection and leaves the loop for good. Idempotent.
    func close() {
        release()
        retryAt = nil
        context.remove(self)
    }

    /// Binds the manager the registry announced, if it did.
    private static func bindManager(_ registry: Registry) -> ForeignToplevels? {
        guard
            let (name, global) = registry.globals.first(where: {
                $0.value.interface == WaylandSession.toplevelsInterface
            })
        else { return nil }
        return ForeignToplevels(registry: registry.proxy, globalName: name, version: global.version)
    }

    /// What a short-lived connection of its own finds (for `--doctor`): the toplevels followed and
    /// not, and which is activated; or why the compositor ended it.
    static func survey(displayName: String?) -> Result<ToplevelSurvey, WaylandError> {
        do throws(WaylandError) {
            let connection = try WaylandDisplay(name: displayName)
            let registry = Registry(display: connection.display)
            defer { registry.destroy() }
            try connection.roundtrip()
            guard let toplevels = bindManager(registry) else {
                throw WaylandError(description: "the compositor does not offer \(WaylandSession.toplevelsInterface)")
            }
            defer { toplevels.destroy() }
            // The list, then every toplevel's first `done`.
            for _ in 0..<2 { try connection.roundtrip() }
            return .success(
                ToplevelSurvey(
                    tracked: toplevels.trackedCount, untracked: toplevels.untrackedCount,
                    activation: toplevels.activated))
        } catch {
            return .failure(error)
        }
    }
}

/// What a survey of the toplevels found.
struct ToplevelSurvey {
    /// Toplevels followed.
    var tracked: Int
    /// Toplevels announced beyond ``ForeignToplevels/maximumTracked``.
    var untracked: Int
    /// Which is activated.
    var activation: ForeignToplevels.Activation
}
