import KeyboardBackendInterface
import SystemdBus

/// What the package's GNOME Shell extension says (interface `org.keyboardadapter.GnomeShell1`,
/// Interfaces/org.keyboardadapter.GnomeShell1.xml), read with its types checked and every value
/// bounded before it is believed: the extension runs inside the shell, but any peer can send a
/// signal that looks like its own until its sender is checked.
package enum GnomeShellMessages {
    /// The extension's state, as `GetState` returns it and `VisibilityChanged` with the `Focus`
    /// before it carry it.
    package struct KeyboardState: Sendable, Hashable {
        /// Visible from the start of the slide in to the start of the slide out.
        package var visible: Bool
        /// The keyboard actor's extents, rounded to whole pixels; nil when empty (disabled).
        package var frame: Rect?
        /// The monitor it is on, named `monitor N` (the shell's index); nil when none is.
        package var output: Output?
        /// The focused window when the visibility last changed; nil when none had it, or when the
        /// extension told no focus (it tells watchers only).
        package var focus: CompanionReport.Focus?
    }

    /// Coordinates beyond this are not believed (a screen is never that large).
    static let coordinateLimit = 1 << 20
    /// At most this many app ids are read from a focus.
    static let appIDLimit = 8

    /// `GetState`'s reply: `b(dddd)(uiiiid)(uas)`.
    package static func state(_ message: BusMessage) -> KeyboardState? {
        guard message.hasSignature("b(dddd)(uiiiid)(uas)") else { return nil }
        do {
            let visible = try message.readBool()
            let frame = try rectangle(message)
            let output = try monitor(message)
            let focus = try focus(message)
            guard let frame, let output else { return nil }
            return KeyboardState(visible: visible, frame: frame, output: output, focus: focus)
        } catch {
            return nil
        }
    }

    /// `VisibilityChanged(b visible, (dddd) frame, (dddd) target, (uiiiid) monitor, t time)`, with
    /// `focus` the `Focus` that came just before it (nil when none came).
    package static func visibilityChanged(_ message: BusMessage, focus: CompanionReport.Focus?)
        -> (state: KeyboardState, target: Rect?)?
    {
        guard message.hasSignature("b(dddd)(dddd)(uiiiid)t") else { return nil }
        do {
            let visible = try message.readBool()
            let frame = try rectangle(message)
            let target = try rectangle(message)
            let output = try monitor(message)
            guard let frame, let target, let output else { return nil }
            return (KeyboardState(visible: visible, frame: frame, output: output, focus: focus), target)
        } catch {
            return nil
        }
    }

    /// `Focus((uas) focus, (dddd) window)`, addressed to a watcher: the focus, with where the
    /// shell shows its window (``CompanionReport/Focus/windowFrame``); `.some(nil)` when no window
    /// has it, nil when malformed.
    package static func focusSignal(_ message: BusMessage) -> CompanionReport.Focus?? {
        guard message.hasSignature("(uas)(dddd)") else { return nil }
        do {
            var focus = try focus(message)
            guard let window = try rectangle(message) else { return nil }
            focus?.windowFrame = window
            return .some(focus)
        } catch {
            return nil
        }
    }

    /// `Moved((dddd) frame, t time)`: the frame; nil when malformed, `.some(nil)` when empty.
    package static func moved(_ message: BusMessage) -> Rect?? {
        guard message.hasSignature("(dddd)t") else { return nil }
        return try? rectangle(message)
    }

    /// A `(dddd)` rectangle rounded edge by edge (the shell's keyboard is a third of the height:
    /// 266.67 pixels at y 533.33 ends at 800, which stays 800); nil when it is out of bounds or
    /// negative; `.some(nil)` (read, but no rectangle) when it is not finite or smaller than a pixel.
    private static func rectangle(_ message: BusMessage) throws(BusFailure) -> Rect?? {
        guard try message.enter("r", "dddd") else { return nil }
        let x = try message.readDouble()
        let y = try message.readDouble()
        let width = try message.readDouble()
        let height = try message.readDouble()
        try message.exit()
        // An actor not laid out yet has no extents (NaN): read, but no rectangle.
        guard [x, y, width, height].allSatisfy(\.isFinite) else { return .some(nil) }
        let limit = Double(coordinateLimit)
        guard [x, y, width, height].allSatisfy({ abs($0) <= limit }), width >= 0, height >= 0 else { return nil }
        let left = Int(x.rounded())
        let top = Int(y.rounded())
        let right = Int((x + width).rounded())
        let bottom = Int((y + height).rounded())
        guard right > left, bottom > top else { return .some(nil) }
        return Rect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// A `(uiiiid)` monitor: index, x, y, width, height, scale; nil when it has no size.
    private static func monitor(_ message: BusMessage) throws(BusFailure) -> Output?? {
        guard try message.enter("r", "uiiiid") else { return nil }
        let index = try message.readUInt32()
        let x = try message.readInt32()
        let y = try message.readInt32()
        let width = try message.readInt32()
        let height = try message.readInt32()
        _ = try message.readDouble()
        try message.exit()
        guard index < 4096, [x, y, width, height].allSatisfy({ abs(Int($0)) <= coordinateLimit }) else { return nil }
        guard width > 0, height > 0 else { return .some(nil) }
        return Output(
            name: "monitor \(index)", frame: Rect(x: Int(x), y: Int(y), width: Int(width), height: Int(height)))
    }

    /// A `(uas)` focus: its pid (0 for none) and at most ``appIDLimit`` app ids, each bounded;
    /// nil when no window had the focus.
    private static func focus(_ message: BusMessage) throws(BusFailure) -> CompanionReport.Focus? {
        guard try message.enter("r", "uas") else { return nil }
        let pid = try message.readUInt32()
        var ids: [String] = []
        guard try message.enter("a", "s") else { return nil }
        // Entries past the limit are skipped whole when the array is left.
        for _ in 0..<64 where message.peek() != nil {
            let id = try message.readString(limit: AppIdentity.maximumAppIDBytes + 1)
            if ids.count < appIDLimit, !id.isEmpty, id.utf8.count <= AppIdentity.maximumAppIDBytes,
                !ids.contains(id)
            {
                ids.append(id)
            }
        }
        try message.exit()
        try message.exit()
        let process = pid > 0 && pid <= UInt32(Int32.max) ? Int32(pid) : nil
        guard process != nil || !ids.isEmpty else { return nil }
        return CompanionReport.Focus(pid: process, appIDs: ids)
    }
}
