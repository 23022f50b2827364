import CWayland

/// Reads the registry's globals: which interfaces the compositor offers, at which version.
/// Forwards each global and its removal to the handlers; lives on the thread that dispatches.
package final class Registry {
    /// The `wl_registry`.
    package let proxy: OpaquePointer
    /// Interface name by global name, as announced so far.
    package private(set) var globals: [UInt32: (interface: String, version: UInt32)] = [:]
    /// Called for each global as it is announced.
    package var onGlobal: ((_ name: UInt32, _ interface: String, _ version: UInt32) -> Void)?
    /// Called when a global goes away (an output unplugged).
    package var onRemove: ((_ name: UInt32) -> Void)?

    /// Asks `display` for its globals; they arrive with the next dispatch or roundtrip.
    package init(display: OpaquePointer) {
        proxy = wl_display_get_registry(display)
        wl_registry_add_listener(proxy, registryListener, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Globals that only KWin offers: they tell a KWin session from another compositor with layer
    /// shell (wlroots ones offer KDE's server-decoration protocol too, so a prefix is not enough).
    package static let kwinGlobals = ["org_kde_plasma_shell", "kde_output_device_v2", "kde_output_management_v2"]

    /// The KWin-only globals this compositor offers (empty: not KWin).
    package var kwinGlobalsOffered: [String] { Self.kwinGlobals.filter(offers) }

    /// True when some global offers `interface`.
    package func offers(_ interface: String) -> Bool { globals.values.contains { $0.interface == interface } }

    /// Releases the registry; no callback comes after this.
    package func destroy() {
        onGlobal = nil
        onRemove = nil
        wl_registry_destroy(proxy)
    }

    fileprivate func announced(_ name: UInt32, _ interface: String, _ version: UInt32) {
        globals[name] = (interface, version)
        onGlobal?(name, interface, version)
    }

    fileprivate func removed(_ name: UInt32) {
        globals[name] = nil
        onRemove?(name)
    }
}

private func registry(_ data: UnsafeMutableRawPointer?) -> Registry {
    Unmanaged<Registry>.fromOpaque(data!).takeUnretainedValue()
}

// A C listener table: written once, then only read by libwayland on the loop thread.
nonisolated(unsafe) private let registryListener = permanent(
    wl_registry_listener(
        global: { data, _, name, interface, version in
            registry(data).announced(name, String(cString: interface!), version)
        },
        global_remove: { data, _, name in registry(data).removed(name) }))
