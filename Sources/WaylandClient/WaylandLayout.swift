import CWayland
import CWaylandProtocols
import CXkbCommon
import Glibc
import KeyboardBackendInterface

/// The seat's keyboard layout: the `wl_keyboard` keymap read with libxkbcommon, and the layout
/// group the compositor last reported. On sway a virtual keyboard (wvkbd's) gives the seat a
/// keyboard; with no seat keyboard the layout is nil.
///
/// Modifiers (and so the group) are only sent to the client with keyboard focus, which the
/// backend never has: until one arrives, the keymap's first layout is the active one.
package final class SeatLayout {
    private let seat: OpaquePointer
    private var keyboard: OpaquePointer?
    private let context: OpaquePointer?
    private var keymap: OpaquePointer?
    private var group: UInt32 = 0
    /// The active layout, nil without a seat keyboard or keymap.
    package private(set) var layout: InputLayout?
    /// Called on the loop thread when `layout` changes.
    package var onChange: (() -> Void)?

    /// Binds the `wl_seat` global `name`.
    package init(registry: OpaquePointer, globalName: UInt32, version: UInt32) {
        seat = OpaquePointer(wl_registry_bind(registry, globalName, ka_wl_seat_interface(), min(version, 5)))
        context = xkb_context_new(XKB_CONTEXT_NO_FLAGS)
        wl_seat_add_listener(seat, seatListener, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Releases the keyboard, the seat and the xkb objects; no callback comes after this.
    package func destroy() {
        releaseKeyboard()
        if wl_proxy_get_version(seat) >= 5 { wl_seat_release(seat) } else { wl_seat_destroy(seat) }
        if let context { xkb_context_unref(context) }
        onChange = nil
    }

    private func releaseKeyboard() {
        if let keyboard {
            if wl_proxy_get_version(keyboard) >= 3 {
                wl_keyboard_release(keyboard)
            } else {
                wl_keyboard_destroy(keyboard)
            }
        }
        keyboard = nil
        if let keymap { xkb_keymap_unref(keymap) }
        keymap = nil
        group = 0
    }

    fileprivate func capabilities(_ caps: UInt32) {
        let hasKeyboard = caps & WL_SEAT_CAPABILITY_KEYBOARD.rawValue != 0
        if hasKeyboard, keyboard == nil, let kb = wl_seat_get_keyboard(seat) {
            keyboard = kb
            wl_keyboard_add_listener(kb, keyboardListener, Unmanaged.passUnretained(self).toOpaque())
        } else if !hasKeyboard, keyboard != nil {
            releaseKeyboard()
            update()
        }
    }

    fileprivate func keymap(format: UInt32, fd: Int32, size: UInt32) {
        defer { close(fd) }
        guard format == WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1.rawValue, size > 0, let context else { return }
        // The fd may be shared with other clients: map it private and read only.
        guard let text = mmap(nil, Int(size), PROT_READ, MAP_PRIVATE, fd, 0), text != MAP_FAILED else { return }
        defer { munmap(text, Int(size)) }
        let next = xkb_keymap_new_from_buffer(
            context, text.assumingMemoryBound(to: CChar.self),
            strnlen(text.assumingMemoryBound(to: CChar.self), Int(size)),
            XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS)
        if let keymap { xkb_keymap_unref(keymap) }
        keymap = next
        group = 0
        update()
    }

    fileprivate func modifiers(group: UInt32) {
        guard group != self.group else { return }
        self.group = group
        update()
    }

    private func update() {
        var next: InputLayout?
        if let keymap, xkb_keymap_num_layouts(keymap) > 0 {
            let index = group < xkb_keymap_num_layouts(keymap) ? group : 0
            if let name = xkb_keymap_layout_get_name(keymap, index) {
                next = InputLayout(name: String(cString: name))
            }
        }
        guard next != layout else { return }
        layout = next
        onChange?()
    }
}

private func seatLayout(_ data: UnsafeMutableRawPointer?) -> SeatLayout {
    Unmanaged<SeatLayout>.fromOpaque(data!).takeUnretainedValue()
}

// A C listener table: written once, then only read by libwayland on the loop thread.
nonisolated(unsafe) private let seatListener = permanent(
    wl_seat_listener(
        capabilities: { data, _, caps in seatLayout(data).capabilities(caps) },
        name: { _, _, _ in }))

// A C listener table: written once, then only read by libwayland on the loop thread.
nonisolated(unsafe) private let keyboardListener = permanent(
    wl_keyboard_listener(
        keymap: { data, _, format, fd, size in seatLayout(data).keymap(format: format, fd: fd, size: size) },
        enter: { _, _, _, _, _ in },
        leave: { _, _, _, _ in },
        key: { _, _, _, _, _, _ in },
        modifiers: { data, _, _, _, _, _, group in seatLayout(data).modifiers(group: group) },
        repeat_info: { _, _, _, _ in }))
