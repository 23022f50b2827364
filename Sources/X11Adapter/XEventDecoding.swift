import CX11
import CX11Loader

extension X11WindowEvent {
    /// The event as the window model takes it; nil for one it does not follow. `inout` because a
    /// RandR screen change also updates Xlib's own idea of the screen size.
    init?(_ event: inout XEvent, on display: XDisplay) {
        if display.isMonitorChange(&event) {
            self = .monitorsChanged
            return
        }
        if let code = display.xkbEventCode, event.type == code {
            // Only a group switch changes the active layout by itself. A new keymap is not read on
            // its own events: `setxkbmap` loads the keymap first and then writes
            // `_XKB_RULES_NAMES`, and reading in between would pair the new layout's name with the
            // old one's code. The layout is read again when the rules names change instead.
            guard withUnsafePointer(to: event, { ka_xkb_is_group_change($0) != 0 }) else { return nil }
            self = .layoutGroupChanged
            return
        }
        switch event.type {
        case CreateNotify:
            let e = event.xcreatewindow
            self = .created(
                window: e.window, parent: e.parent,
                geometry: X11Geometry(x: e.x, y: e.y, width: e.width, height: e.height, border: e.border_width),
                overrideRedirect: e.override_redirect != 0)
        case DestroyNotify:
            self = .destroyed(event.xdestroywindow.window)
        case ReparentNotify:
            let e = event.xreparent
            self = .reparented(window: e.window, parent: e.parent, x: e.x, y: e.y)
        case ConfigureNotify:
            let e = event.xconfigure
            self = .configured(
                window: e.window,
                geometry: X11Geometry(x: e.x, y: e.y, width: e.width, height: e.height, border: e.border_width),
                synthetic: e.send_event != 0)
        case MapNotify:
            self = .mapped(event.xmap.window)
        case UnmapNotify:
            self = .unmapped(event.xunmap.window, synthetic: event.xunmap.send_event != 0)
        case PropertyNotify:
            self = .propertyChanged(window: event.xproperty.window, atom: event.xproperty.atom)
        default:
            return nil
        }
    }
}
