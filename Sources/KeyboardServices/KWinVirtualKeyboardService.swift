import KeyboardBackendInterface
import SystemdBus

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension DBusKeyboardService {
    /// KWin's virtual keyboard (maliit-keyboard, or whichever input method KWin runs):
    /// `org.kde.KWin` at `/VirtualKeyboard`, interface `org.kde.kwin.VirtualKeyboard`, boolean
    /// property `visible` with a `visibleChanged` signal of its own (KWin sends no
    /// PropertiesChanged). Show is `forceActivate`, what Plasma's keyboard button calls, once
    /// `willShowOnActive()` says KWin would show it (KWin 6.7's `mode` 1 shows it only after touch
    /// or stylus input, 0 never: the request then fails saying so); hide sets `active` to false. The pid on the bus is KWin's, which starts the input method itself.
    /// While it runs, the package's KWin script reports the keyboard's window and the focus
    /// (`KeyboardServiceState.companion`) on KWin 6.
    public static func kwinVirtualKeyboard(
        environment: [String: String] = ProcessEnvironment.current
    ) -> DBusKeyboardService {
        DBusKeyboardService(
            interface: ServiceInterface(
                name: "kwin-virtual-keyboard", keyboardName: "KWin virtual keyboard", busName: "org.kde.KWin",
                objectPath: "/VirtualKeyboard", interface: "org.kde.kwin.VirtualKeyboard", visibleProperty: "visible",
                changeSignal: "visibleChanged", loadsKWinCompanion: true, asksWillShow: true,
                request: { visible in visible ? .method("forceActivate", []) : .setBool("active", false) }),
            environment: environment)
    }
}
