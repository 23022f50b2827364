import CWayland
import CWaylandProtocols
import Glibc
import KeyboardBackendInterface
import WaylandClient

/// Which toplevels the compositor has activated, from wlr-foreign-toplevel-management: every
/// client's toplevels are announced with their app id and state, so the one with the focus when a
/// keyboard shows is known without asking anything then.
///
/// Any client can make toplevels, thousands of them with long titles, so what is kept is bounded:
/// per handle only its app id (at most ``AppIdentity/maximumAppIDBytes``, a longer one is kept as
/// unknown) and whether it is activated; titles are never kept. At most ``maximumTracked`` handles
/// are followed; one announced beyond that is destroyed at once, and from then on "no followed
/// toplevel is activated" no longer means "none is" (``activated`` says so). A handle is
/// destroyed when its toplevel closes. Lives on the loop's thread.
final class ForeignToplevels {
    /// What is known of one toplevel, and what its next `done` applies.
    private struct Toplevel {
        var appID: String?
        var isActivated = false
        var pendingAppID: String??
        var pendingActivated: Bool?
    }

    /// The most toplevels followed at once: far more than any desktop has open.
    static let maximumTracked = 1024

    private let manager: OpaquePointer
    private var toplevels: [OpaquePointer: Toplevel] = [:]
    /// Toplevels announced while `maximumTracked` were followed (destroyed unseen).
    private(set) var untrackedCount = 0
    /// Set when the compositor ended the list (`finished`): nothing more is learnt.
    private(set) var isFinished = false

    /// Binds the manager global `name`.
    init(registry: OpaquePointer, globalName: UInt32, version: UInt32) {
        manager = OpaquePointer(
            wl_registry_bind(registry, globalName, ka_zwlr_foreign_toplevel_manager_v1_interface(), min(version, 3)))
        ka_foreign_toplevel_manager_add_listener(manager, managerListener, Unmanaged.passUnretained(self).toOpaque())
    }

    /// What the compositor says has the focus now.
    enum Activation: Equatable {
        /// These toplevels are activated (usually one; one per seat); their app ids, nil where
        /// unknown or too long.
        case toplevels([String?])
        /// None is: the focus is on no toplevel (an empty workspace, a layer surface).
        case noneActivated
        /// Not known: no followed toplevel is activated, but some toplevels are not followed, or the
        /// compositor ended the list.
        case unknown
    }

    /// The activated toplevels as of the last `done` of each.
    var activated: Activation {
        if isFinished { return .unknown }
        let active = toplevels.values.filter(\.isActivated).map(\.appID)
        if !active.isEmpty { return .toplevels(active) }
        return untrackedCount > 0 ? .unknown : .noneActivated
    }

    /// How many toplevels are followed.
    var trackedCount: Int { toplevels.count }

    /// Destroys every handle and stops the manager; no callback comes after this.
    func destroy() {
        for handle in toplevels.keys { ka_foreign_toplevel_handle_destroy(handle) }
        toplevels = [:]
        if !isFinished { ka_foreign_toplevel_manager_stop(manager) }
    }

    fileprivate func announced(_ handle: OpaquePointer) {
        guard toplevels.count < Self.maximumTracked else {
            untrackedCount += 1
            ka_foreign_toplevel_handle_destroy(handle)
            return
        }
        toplevels[handle] = Toplevel()
        ka_foreign_toplevel_handle_add_listener(handle, handleListener, Unmanaged.passUnretained(self).toOpaque())
    }

    fileprivate func finished() {
        // The compositor destroys the manager after this event; the handles stay until closed.
        isFinished = true
        wl_proxy_destroy(manager)
    }

    fileprivate func appID(_ handle: OpaquePointer, _ text: UnsafePointer<CChar>?) {
        toplevels[handle]?.pendingAppID = .some(Self.boundedText(text))
    }

    fileprivate func state(_ handle: OpaquePointer, _ states: UnsafeMutablePointer<wl_array>?) {
        guard toplevels[handle] != nil else { return }
        var activated = false
        if let states, let data = states.pointee.data {
            let count = states.pointee.size / MemoryLayout<UInt32>.size
            let values = UnsafeBufferPointer(start: data.assumingMemoryBound(to: UInt32.self), count: count)
            activated = values.contains(UInt32(KA_FOREIGN_TOPLEVEL_STATE_ACTIVATED))
        }
        toplevels[handle]?.pendingActivated = activated
    }

    fileprivate func done(_ handle: OpaquePointer) {
        guard var toplevel = toplevels[handle] else { return }
        if let appID = toplevel.pendingAppID { toplevel.appID = appID }
        if let activated = toplevel.pendingActivated { toplevel.isActivated = activated }
        toplevel.pendingAppID = nil
        toplevel.pendingActivated = nil
        toplevels[handle] = toplevel
    }

    fileprivate func closed(_ handle: OpaquePointer) {
        guard toplevels.removeValue(forKey: handle) != nil else { return }
        ka_foreign_toplevel_handle_destroy(handle)
    }

    /// A string from the compositor, read no further than the bound: nil when longer (it then
    /// matches no app id) or not UTF-8.
    static func boundedText(_ text: UnsafePointer<CChar>?) -> String? {
        guard let text else { return nil }
        let length = strnlen(text, AppIdentity.maximumAppIDBytes + 1)
        guard length <= AppIdentity.maximumAppIDBytes else { return nil }
        let bytes = UnsafeRawBufferPointer(start: text, count: length)
        return String(validating: bytes.bindMemory(to: UInt8.self), as: UTF8.self)
    }
}

private func toplevels(_ data: UnsafeMutableRawPointer?) -> ForeignToplevels {
    Unmanaged<ForeignToplevels>.fromOpaque(data!).takeUnretainedValue()
}

// C listener tables: written once, then only read by libwayland on the loop thread.
nonisolated(unsafe) private let managerListener = permanent(
    ka_foreign_toplevel_manager_listener(
        toplevel: { data, _, handle in toplevels(data).announced(handle!) },
        finished: { data, _ in toplevels(data).finished() }))

nonisolated(unsafe) private let handleListener = permanent(
    ka_foreign_toplevel_handle_listener(
        // Titles are never read: nothing is decided by them, and any client can make them long.
        title: { _, _, _ in },
        app_id: { data, handle, text in toplevels(data).appID(handle!, text) },
        output_enter: { _, _, _ in },
        output_leave: { _, _, _ in },
        state: { data, handle, states in toplevels(data).state(handle!, states) },
        done: { data, handle in toplevels(data).done(handle!) },
        closed: { data, handle in toplevels(data).closed(handle!) },
        parent: { _, _, _ in }))
