/// What only keyboards need read: a window is described first, and these are read only once a
/// rule has found it to be a keyboard.
struct KeyboardProperties: Sendable, Hashable {
    /// The keyboard's process: the server's word for it (X-Resource), else `_NET_WM_PID`.
    var pid: Int32?
    /// Whether WM_STATE says iconic: the window manager keeps an iconified window mapped.
    var isIconic = false
    /// `_NET_WM_STRUT_PARTIAL`'s items.
    var strutPartial: [UInt]?
    /// `_NET_WM_STRUT`'s items.
    var strut: [UInt]?
    /// What the window manager says its frame adds around the window (`_NET_FRAME_EXTENTS`).
    var frameExtents: FrameExtents?
}

/// The widths a window manager's frame adds on each side of a client window (title bar and
/// borders), as `_NET_FRAME_EXTENTS` states them: left, right, top, bottom, measured from the
/// client's outer edge (its own border included).
struct FrameExtents: Sendable, Hashable {
    /// See the type.
    var left: Int
    /// See the type.
    var right: Int
    /// See the type.
    var top: Int
    /// See the type.
    var bottom: Int

    /// The extents in `_NET_FRAME_EXTENTS`'s four items; nil for an absent, short or impossible
    /// property (a width beyond what an X coordinate can hold).
    init?(_ items: [UInt]?) {
        guard let items, items.count >= 4 else { return nil }
        let limit = UInt(Int16.max)
        guard items.prefix(4).allSatisfy({ $0 <= limit }) else { return nil }
        left = Int(items[0])
        right = Int(items[1])
        top = Int(items[2])
        bottom = Int(items[3])
    }
}

/// The properties the model follows, by name.
enum FollowedProperties {
    /// Those that decide whether a window is a keyboard.
    static let describing = [
        "WM_CLASS", "WM_NAME", "_NET_WM_NAME", "_NET_WM_WINDOW_TYPE", "WM_HINTS", "ONSCREEN_KEYBOARD",
    ]
    /// Those that only matter for keyboards.
    static let keyboard = [
        "_NET_WM_PID", "WM_STATE", "_NET_WM_STRUT", "_NET_WM_STRUT_PARTIAL", "_NET_FRAME_EXTENTS",
    ]
    /// ICCCM's IconicState, WM_STATE's first item for an iconified window.
    static let iconicState: UInt = 3
}

extension WindowServer {
    /// Reads everything that decides whether `window` is a keyboard.
    func describe(_ window: WindowID, overrideRedirect: Bool) -> X11WindowDescription {
        var description = X11WindowDescription(overrideRedirect: overrideRedirect)
        // WM_NAME is read as the fallback of _NET_WM_NAME.
        for name in ["WM_CLASS", "_NET_WM_NAME", "_NET_WM_WINDOW_TYPE", "WM_HINTS", "ONSCREEN_KEYBOARD"] {
            read(name, of: window, into: &description)
        }
        return description
    }

    /// Reads one property that decides whether the window is a keyboard.
    func read(_ property: String, of window: WindowID, into description: inout X11WindowDescription) {
        switch property {
        case "WM_CLASS":
            let wmClass = windowClass(window)
            description.instance = wmClass?.instance
            description.windowClass = wmClass?.windowClass
        case "WM_NAME", "_NET_WM_NAME":
            description.title = text(window, "_NET_WM_NAME") ?? text(window, "WM_NAME")
        case "_NET_WM_WINDOW_TYPE":
            // EWMH defines about a dozen types and a window has one or two: the first few are read,
            // so that a window listing thousands of atoms costs a few round trips at most.
            description.windowTypes = (values(window, "_NET_WM_WINDOW_TYPE", maxItems: 16) ?? []).compactMap {
                atomName(AtomID($0))
            }
        case "WM_HINTS":
            // WM_HINTS: flags first, then the input field (InputHint is bit 0).
            let hints = values(window, "WM_HINTS")
            description.acceptsInput = hints.flatMap { $0.count >= 2 && $0[0] & 1 != 0 ? $0[1] != 0 : nil }
        case "ONSCREEN_KEYBOARD":
            description.onscreenKeyboard = values(window, "ONSCREEN_KEYBOARD")?.first
        default:
            break
        }
    }

    /// Reads everything that only matters for keyboards.
    func keyboardProperties(of window: WindowID) -> KeyboardProperties {
        var keyboard = KeyboardProperties()
        for name in ["_NET_WM_PID", "WM_STATE", "_NET_WM_STRUT_PARTIAL", "_NET_WM_STRUT", "_NET_FRAME_EXTENTS"] {
            read(name, of: window, into: &keyboard)
        }
        return keyboard
    }

    /// Reads one property that only matters for keyboards.
    func read(_ property: String, of window: WindowID, into keyboard: inout KeyboardProperties) {
        switch property {
        case "_NET_WM_PID":
            keyboard.pid =
                clientProcess(of: window) ?? values(window, "_NET_WM_PID")?.first.flatMap { Int32(exactly: $0) }
        case "WM_STATE":
            keyboard.isIconic = values(window, "WM_STATE")?.first == FollowedProperties.iconicState
        case "_NET_WM_STRUT_PARTIAL":
            keyboard.strutPartial = values(window, "_NET_WM_STRUT_PARTIAL")
        case "_NET_WM_STRUT":
            keyboard.strut = values(window, "_NET_WM_STRUT")
        case "_NET_FRAME_EXTENTS":
            keyboard.frameExtents = FrameExtents(values(window, "_NET_FRAME_EXTENTS", maxItems: 4))
        default:
            break
        }
    }
}
