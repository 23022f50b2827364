import CWayland
import CWaylandProtocols
import KeyboardBackendInterface

/// One `wl_output` and its `zxdg_output_v1`: the output's name and logical frame. Lives on the
/// loop thread; its proxies call back into it through an unretained pointer, so its owner keeps
/// it alive until `destroy()`.
package final class WatchedOutput {
    /// The registry name of the `wl_output` global.
    package let globalName: UInt32
    /// The bound `wl_output`.
    package let proxy: OpaquePointer
    private var xdgOutput: OpaquePointer?
    /// Called on the loop thread after every `done`: the output was announced, changed, or
    /// re-enabled (sway resends its state then).
    package var onDone: (() -> Void)?

    // What the compositor said so far; applied at `done`.
    private var wlName: String?
    private var xdgName: String?
    private var position: (x: Int, y: Int) = (0, 0)
    private var modeSize: (width: Int, height: Int)?
    private var scale = 1
    private var logicalPosition: (x: Int, y: Int)?
    private var logicalSize: (width: Int, height: Int)?

    /// The output as last completed by a `done`, nil before the first.
    package private(set) var output: Output?

    /// Binds the `wl_output` global `name` at `version`.
    package init(registry: OpaquePointer, globalName: UInt32, version: UInt32) {
        self.globalName = globalName
        proxy = OpaquePointer(wl_registry_bind(registry, globalName, ka_wl_output_interface(), min(version, 4)))
        wl_output_add_listener(proxy, outputListener, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Asks for the logical geometry, once, when the compositor offers xdg-output.
    package func attach(manager: OpaquePointer) {
        guard xdgOutput == nil, let xdg = ka_xdg_output_manager_get_xdg_output(manager, proxy) else { return }
        xdgOutput = xdg
        ka_xdg_output_add_listener(xdg, xdgOutputListener, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Releases the proxies; no callback comes after this.
    package func destroy() {
        if let xdgOutput { ka_xdg_output_destroy(xdgOutput) }
        xdgOutput = nil
        if wl_proxy_get_version(proxy) >= 3 { wl_output_release(proxy) } else { wl_output_destroy(proxy) }
        onDone = nil
    }

    /// The logical frame: xdg-output's when known, else the mode divided by the scale.
    private var logicalFrame: Rect? {
        if let size = logicalSize {
            let origin = logicalPosition ?? position
            return Rect(x: origin.x, y: origin.y, width: size.width, height: size.height)
        }
        guard let mode = modeSize else { return nil }
        let s = max(1, scale)
        return Rect(x: position.x, y: position.y, width: mode.width / s, height: mode.height / s)
    }

    fileprivate func done() {
        guard let frame = logicalFrame else { return }
        // wl_output v4 names the output; older servers name it through xdg-output v2.
        output = Output(name: wlName ?? xdgName ?? "output-\(globalName)", frame: frame)
        onDone?()
    }

    fileprivate func geometry(x: Int32, y: Int32) { position = (Int(x), Int(y)) }
    fileprivate func mode(flags: UInt32, width: Int32, height: Int32) {
        if flags & WL_OUTPUT_MODE_CURRENT.rawValue != 0 { modeSize = (Int(width), Int(height)) }
    }
    fileprivate func scaled(_ factor: Int32) { scale = Int(factor) }
    fileprivate func named(_ name: String) { wlName = name }
    fileprivate func xdgNamed(_ name: String) { xdgName = name }
    fileprivate func logical(x: Int32, y: Int32) { logicalPosition = (Int(x), Int(y)) }
    fileprivate func logical(width: Int32, height: Int32) { logicalSize = (Int(width), Int(height)) }
    /// xdg-output v3 completes with wl_output.done; earlier versions send their own done.
    fileprivate func xdgDone() { done() }
}

private func watched(_ data: UnsafeMutableRawPointer?) -> WatchedOutput {
    Unmanaged<WatchedOutput>.fromOpaque(data!).takeUnretainedValue()
}

// Listener tables live for the whole process: libwayland keeps pointing at them.
nonisolated(unsafe) private let outputListener = permanent(
    wl_output_listener(
        geometry: { data, _, x, y, _, _, _, _, _, _ in watched(data).geometry(x: x, y: y) },
        mode: { data, _, flags, width, height, _ in watched(data).mode(flags: flags, width: width, height: height) },
        done: { data, _ in watched(data).done() },
        scale: { data, _, factor in watched(data).scaled(factor) },
        name: { data, _, name in watched(data).named(String(cString: name!)) },
        description: { _, _, _ in }))

// A C listener table: written once, then only read by libwayland on the loop thread.
nonisolated(unsafe) private let xdgOutputListener = permanent(
    ka_xdg_output_listener(
        logical_position: { data, _, x, y in watched(data).logical(x: x, y: y) },
        logical_size: { data, _, width, height in watched(data).logical(width: width, height: height) },
        done: { data, _ in watched(data).xdgDone() },
        name: { data, _, name in watched(data).xdgNamed(String(cString: name!)) },
        description: { _, _, _ in }))

/// A value copied to memory that is never freed: for listener tables libwayland keeps using.
package func permanent<T>(_ value: T) -> UnsafeMutablePointer<T> {
    let pointer = UnsafeMutablePointer<T>.allocate(capacity: 1)
    pointer.initialize(to: value)
    return pointer
}
