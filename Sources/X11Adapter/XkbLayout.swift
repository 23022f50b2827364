import CX11
import CX11Loader
import CXkbCommon
import KeyboardBackendInterface

/// The active input layout of the X server's core keyboard: its name from the keymap
/// (libxkbcommon-x11) and its short code from `_XKB_RULES_NAMES`, kept up to date from XKB's own
/// events (`setxkbmap`, a group switch) on the backend's connection.
final class XkbLayout: InputLayoutSource {
    private let display: XDisplay
    private let context: OpaquePointer
    private let device: Int32
    /// The layout as last read.
    private(set) var current: InputLayout?

    /// Sets up XKB on `display`; nil when the server has no usable XKB (then no layout is reported).
    init?(display: XDisplay) {
        guard let (device, _) = display.selectKeyboardLayoutChanges(),
            let context = xkb_context_new(XKB_CONTEXT_NO_FLAGS)
        else { return nil }
        self.display = display
        self.context = context
        self.device = device
        current = read()
    }

    deinit { xkb_context_unref(context) }

    /// Reads the layout again; true when it changed. Keymaps change rarely (a `setxkbmap`, a group
    /// switch), so the keymap is simply read afresh each time rather than patched.
    func refresh() -> Bool {
        let layout = read()
        guard layout != current else { return false }
        current = layout
        return true
    }

    private func read() -> InputLayout? {
        guard let keymap = display.keyboardKeymap(context: context, device: device) else { return nil }
        defer { xkb_keymap_unref(keymap) }
        guard let state = display.keyboardState(keymap: keymap, device: device) else { return nil }
        defer { xkb_state_unref(state) }
        let index = xkb_state_serialize_layout(state, XKB_STATE_LAYOUT_EFFECTIVE)
        guard let name = xkb_keymap_layout_get_name(keymap, index) else { return nil }
        return InputLayout(name: String(cString: name), code: code(at: Int(index)))
    }

    /// The layout's short code: `_XKB_RULES_NAMES` holds rules, model, layouts ("us,de"), variants
    /// and options as NUL-separated strings, the layouts in group order.
    private func code(at index: Int) -> String? {
        guard let names = display.property(display.root, display.atom("_XKB_RULES_NAMES"), maxItems: 1024) else {
            return nil
        }
        let fields = names.bytes.split(separator: 0, omittingEmptySubsequences: false)
        guard fields.count > 2 else { return nil }
        let layouts = String(decoding: fields[2], as: UTF8.self).split(separator: ",", omittingEmptySubsequences: false)
        guard index < layouts.count, !layouts[index].isEmpty else { return nil }
        return String(layouts[index])
    }
}
