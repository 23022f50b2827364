import CWayland
import CWaylandProtocols
import Glibc

// A hostile Wayland client for the tests: maps COUNT xdg toplevels, each with a title of
// TITLE_BYTES bytes and a long app id (every other one longer than any app id is compared),
// all showing one shared 1x1 buffer. Prints `mapped COUNT` once every toplevel is mapped, then
// keeps them until it is killed.
//
//     toplevelflood COUNT TITLE_BYTES      (WAYLAND_DISPLAY names the compositor)

/// Everything the client holds; used on the main thread only.
final class Flood {
    let display: OpaquePointer
    var compositor: OpaquePointer?
    var shm: OpaquePointer?
    var wmBase: OpaquePointer?
    var buffer: OpaquePointer?
    var configured = 0

    init(display: OpaquePointer) { self.display = display }

    func fail(_ message: String) -> Never {
        let text = "toplevelflood: \(message)\n"
        _ = text.withCString { write(2, $0, strlen($0)) }
        exit(1)
    }

    /// A 1x1 ARGB buffer in an unlinked temporary file, shared by every surface.
    func makeBuffer() {
        var template = Array("/tmp/toplevelflood-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        if fd >= 0 { unlink(template) }
        guard fd >= 0, ftruncate(fd, 4) == 0, let shm else { fail("no shared memory buffer") }
        let pool = wl_shm_create_pool(shm, fd, 4)
        buffer = wl_shm_pool_create_buffer(pool, 0, 1, 1, 4, WL_SHM_FORMAT_ARGB8888.rawValue)
        wl_shm_pool_destroy(pool)
        close(fd)
    }

    func map(index: Int, title: String) {
        guard let compositor, let wmBase else { fail("the compositor lacks wl_compositor or xdg_wm_base") }
        let surface = wl_compositor_create_surface(compositor)!
        let xdgSurface = ka_wm_base_get_xdg_surface(wmBase, surface)!
        ka_xdg_surface_add_listener(xdgSurface, surfaceListener, UnsafeMutableRawPointer(surface))
        let toplevel = ka_xdg_surface_get_toplevel(xdgSurface)!
        ka_xdg_toplevel_add_listener(toplevel, toplevelListener, nil)
        ka_xdg_toplevel_set_title(toplevel, title)
        let appID = "flood-\(index)-" + String(repeating: "a", count: index % 2 == 0 ? 200 : 2000)
        ka_xdg_toplevel_set_app_id(toplevel, appID)
        wl_surface_commit(surface)
    }

    func surfaceConfigured(_ xdgSurface: OpaquePointer, surface: OpaquePointer, serial: UInt32) {
        ka_xdg_surface_ack_configure(xdgSurface, serial)
        // Only the first configure maps; later ones are acknowledged with the same buffer.
        wl_surface_attach(surface, buffer, 0, 0)
        wl_surface_commit(surface)
        configured += 1
    }
}

nonisolated(unsafe) var flood: Flood!

func permanentCopy<T>(_ value: T) -> UnsafeMutablePointer<T> {
    let pointer = UnsafeMutablePointer<T>.allocate(capacity: 1)
    pointer.initialize(to: value)
    return pointer
}

nonisolated(unsafe) let registryListener = permanentCopy(
    wl_registry_listener(
        global: { _, registry, name, interface, version in
            switch String(cString: interface!) {
            case "wl_compositor":
                flood.compositor = OpaquePointer(wl_registry_bind(registry, name, ka_wl_compositor_interface(), 4))
            case "wl_shm":
                flood.shm = OpaquePointer(wl_registry_bind(registry, name, ka_wl_shm_interface(), 1))
            case "xdg_wm_base":
                let base = OpaquePointer(wl_registry_bind(registry, name, ka_xdg_wm_base_interface(), min(version, 2)))!
                ka_wm_base_add_listener(base, wmBaseListener, nil)
                flood.wmBase = base
            default:
                break
            }
        },
        global_remove: { _, _, _ in }))

nonisolated(unsafe) let wmBaseListener = permanentCopy(
    ka_wm_base_listener(ping: { _, base, serial in ka_wm_base_pong(base, serial) }))

nonisolated(unsafe) let surfaceListener = permanentCopy(
    ka_xdg_surface_listener(configure: { data, xdgSurface, serial in
        flood.surfaceConfigured(xdgSurface!, surface: OpaquePointer(data!), serial: serial)
    }))

nonisolated(unsafe) let toplevelListener = permanentCopy(
    ka_xdg_toplevel_listener(configure: { _, _, _, _, _ in }, close: { _, _ in }))

let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[1]), count > 0, let titleBytes = Int(arguments[2]),
    titleBytes > 0
else {
    _ = "usage: toplevelflood COUNT TITLE_BYTES\n".withCString { write(2, $0, strlen($0)) }
    exit(2)
}
guard let display = wl_display_connect(nil) else {
    _ = "toplevelflood: cannot connect\n".withCString { write(2, $0, strlen($0)) }
    exit(1)
}
flood = Flood(display: display)
let registry = wl_display_get_registry(display)
wl_registry_add_listener(registry, registryListener, nil)
if wl_display_roundtrip(display) < 0 { flood.fail("lost the compositor") }
flood.makeBuffer()
let title = String(repeating: "t", count: titleBytes)
// In batches with a round trip between them: libwayland fails a request that finds its socket
// full, so the compositor must keep up with what is sent.
var made = 0
while made < count {
    let batch = min(4, count - made)
    for index in made..<(made + batch) { flood.map(index: index, title: title) }
    made += batch
    if wl_display_roundtrip(display) < 0 { flood.fail("lost the compositor after \(made) toplevels") }
}
while flood.configured < count {
    if wl_display_dispatch(display) < 0 { flood.fail("lost the compositor while mapping") }
}
if wl_display_roundtrip(display) < 0 { flood.fail("lost the compositor") }
_ = "mapped \(count)\n".withCString { write(1, $0, strlen($0)) }
while wl_display_dispatch(display) >= 0 {}
