/// What kind of thing covers the screen.
public enum KeyboardKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// An on-screen keyboard (onboard, matchbox-keyboard, xvkbd, wvkbd, squeekboard, ...).
    case keyboard
    /// An input-method candidate or lookup panel (fcitx5, ibus).
    case inputMethodPanel
}

/// Which keyboard an update is about.
public struct KeyboardIdentity: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A stable id, unique among the keyboards a backend reports at one time. On X11, `x11:` and the
    /// keyboard client window's id in hex; on Wayland, `wayland:` and a token per output and edge.
    public var id: String
    /// A name for people, such as `onboard` or `wvkbd`.
    public var name: String
    /// Keyboard or input-method panel.
    public var kind: KeyboardKind
    /// The keyboard program's process id, when the display server tells it.
    public var pid: Int32?

    /// Creates an identity.
    public init(id: String, name: String, kind: KeyboardKind = .keyboard, pid: Int32? = nil) {
        self.id = id
        self.name = name
        self.kind = kind
        self.pid = pid
    }

    /// The name and the id, as `name (id)`.
    public var description: String { "\(name) (\(id))" }
}

/// An output (monitor) in global logical coordinates.
public struct Output: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The output's name, such as `HDMI-1`, `HEADLESS-1`, or `screen` for a whole X screen.
    public var name: String
    /// The output's rectangle in global logical pixels.
    public var frame: Rect

    /// Creates an output.
    public init(name: String, frame: Rect) {
        self.name = name
        self.frame = frame
    }

    /// The name and the frame.
    public var description: String { "\(name) \(frame)" }
}

/// The active keyboard layout (what the keys type).
public struct InputLayout: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The layout's name for people, such as `English (US)`.
    public var name: String
    /// The layout's short code, such as `us`, when known.
    public var code: String?

    /// Creates a layout description.
    public init(name: String, code: String? = nil) {
        self.name = name
        self.code = code
    }

    /// The name, with the code in brackets when known.
    public var description: String { code.map { "\(name) [\($0)]" } ?? name }
}

/// How a keyboard's geometry was obtained.
public enum GeometrySource: String, Sendable, Hashable, Codable, CaseIterable {
    /// The display server reported the keyboard's own window geometry (X11 window frames).
    case reported
    /// Inferred from something else, such as the space the compositor reserves (Wayland probe).
    case derived
    /// Inferred from reserved space that may also hold panels at the keyboard's edge: the keyboard
    /// lies within the frame, which may be larger (a keyboard already up when watching started,
    /// sharing its edge with a bar; it is exact again from its first hide on).
    case derivedUpperBound
    /// Nothing tells where the keyboard is.
    case unknown
}
