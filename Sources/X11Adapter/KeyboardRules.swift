import Glibc
import KeyboardBackendInterface
import KeyboardJSON

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a window tells about itself, as far as keyboard rules look at it. Read once per window and
/// updated property by property as the window changes them.
public struct X11WindowDescription: Sendable, Hashable {
    /// WM_CLASS instance (`res_name`), nil when the window has no WM_CLASS.
    public var instance: String?
    /// WM_CLASS class (`res_class`), nil when the window has no WM_CLASS.
    public var windowClass: String?
    /// `_NET_WM_NAME`, else WM_NAME.
    public var title: String?
    /// The `_NET_WM_WINDOW_TYPE` atoms, by name, such as `_NET_WM_WINDOW_TYPE_DOCK`.
    public var windowTypes: [String]
    /// Whether the window bypasses the window manager.
    public var overrideRedirect: Bool
    /// WM_HINTS' input field, when the window sets it.
    public var acceptsInput: Bool?
    /// onboard's `ONSCREEN_KEYBOARD` cardinal, when present.
    public var onscreenKeyboard: UInt?

    /// Creates a description.
    public init(
        instance: String? = nil, windowClass: String? = nil, title: String? = nil, windowTypes: [String] = [],
        overrideRedirect: Bool = false, acceptsInput: Bool? = nil, onscreenKeyboard: UInt? = nil
    ) {
        self.instance = instance
        self.windowClass = windowClass
        self.title = title
        self.windowTypes = windowTypes
        self.overrideRedirect = overrideRedirect
        self.acceptsInput = acceptsInput
        self.onscreenKeyboard = onscreenKeyboard
    }
}

/// One way to recognise a keyboard (or input-method panel) window. Every field that is set must
/// match; fields left nil match anything. Strings compare exactly (case-sensitive).
///
/// The same fields make up the user rules file (see ``KeyboardRules/configFileURL(environment:)``).
public struct KeyboardRule: Sendable, Hashable {
    /// The name reported for matching keyboards, such as `onboard`.
    public var name: String
    /// Keyboard or input-method panel.
    public var kind: KeyboardKind
    /// WM_CLASS class, such as `XVkbd`.
    public var windowClass: String?
    /// WM_CLASS instance, such as `xvkbd`.
    public var instance: String?
    /// The window title (`_NET_WM_NAME`, else WM_NAME).
    public var title: String?
    /// A `_NET_WM_WINDOW_TYPE` the window must have, with or without the `_NET_WM_WINDOW_TYPE_`
    /// prefix (`DOCK` or `_NET_WM_WINDOW_TYPE_DOCK`).
    public var windowType: String?
    /// Whether the window must (true) or must not (false) be override-redirect.
    public var overrideRedirect: Bool?
    /// Whether the window must have a WM_CLASS at all (matchbox-keyboard has none).
    public var hasClass: Bool?
    /// The value WM_HINTS' input field must have (keyboards usually say false: they never take focus).
    public var acceptsInput: Bool?
    /// The value onboard's `ONSCREEN_KEYBOARD` property must have.
    public var onscreenKeyboard: UInt?

    /// Creates a rule.
    public init(
        name: String, kind: KeyboardKind = .keyboard, windowClass: String? = nil, instance: String? = nil,
        title: String? = nil, windowType: String? = nil, overrideRedirect: Bool? = nil, hasClass: Bool? = nil,
        acceptsInput: Bool? = nil, onscreenKeyboard: UInt? = nil
    ) {
        self.name = name
        self.kind = kind
        self.windowClass = windowClass
        self.instance = instance
        self.title = title
        self.windowType = windowType
        self.overrideRedirect = overrideRedirect
        self.hasClass = hasClass
        self.acceptsInput = acceptsInput
        self.onscreenKeyboard = onscreenKeyboard
    }

    /// The keys a rule in the rules file may have.
    static let fileKeys: Set<String> = [
        "name", "kind", "class", "instance", "title", "windowType", "overrideRedirect", "hasClass", "acceptsInput",
        "onscreenKeyboard",
    ]

    /// Reads a rule from the rules file; `kind` may be left out (keyboard).
    init(_ fields: JSONFields) throws(JSONParser.Failure) {
        name = try fields.string("name")
        kind = try fields.optionalChoice("kind", as: KeyboardKind.self) ?? .keyboard
        windowClass = try fields.optionalString("class")
        instance = try fields.optionalString("instance")
        title = try fields.optionalString("title")
        windowType = try fields.optionalString("windowType")
        overrideRedirect = try fields.optionalBool("overrideRedirect")
        hasClass = try fields.optionalBool("hasClass")
        acceptsInput = try fields.optionalBool("acceptsInput")
        onscreenKeyboard = try fields.optionalInt("onscreenKeyboard", in: 0...Int(UInt32.max)).map { UInt($0) }
    }

    /// True when a rule with no condition at all would match every window: such rules are refused.
    var isUnconditional: Bool {
        windowClass == nil && instance == nil && title == nil && windowType == nil && overrideRedirect == nil
            && hasClass == nil && acceptsInput == nil && onscreenKeyboard == nil
    }

    /// Whether `window` satisfies every condition of the rule.
    public func matches(_ window: X11WindowDescription) -> Bool {
        if isUnconditional { return false }
        if let windowClass, window.windowClass != windowClass { return false }
        if let instance, window.instance != instance { return false }
        if let title, window.title != title { return false }
        if let windowType {
            let full = windowType.hasPrefix("_NET_WM_WINDOW_TYPE_") ? windowType : "_NET_WM_WINDOW_TYPE_" + windowType
            if !window.windowTypes.contains(full) { return false }
        }
        if let overrideRedirect, window.overrideRedirect != overrideRedirect { return false }
        if let hasClass, (window.windowClass != nil) != hasClass { return false }
        if let acceptsInput, window.acceptsInput != acceptsInput { return false }
        if let onscreenKeyboard, window.onscreenKeyboard != onscreenKeyboard { return false }
        return true
    }
}

/// The rules the X11 backend recognises keyboards by: the user's own first, then the built-in ones.
///
/// ## The rules file
/// `$XDG_CONFIG_HOME/keyboard-adapter/rules.json` (`~/.config/keyboard-adapter/rules.json` when
/// `XDG_CONFIG_HOME` is unset) holds a JSON object with a `rules` array. Each rule has a `name`, an
/// optional `kind` (`keyboard`, the default, or `inputMethodPanel`), and at least one condition:
/// `class`, `instance`, `title`, `windowType`, `overrideRedirect`, `hasClass`, `acceptsInput`,
/// `onscreenKeyboard`. For example:
/// ```json
/// { "rules": [
///     { "name": "florence", "class": "Florence" },
///     { "name": "my-panel", "kind": "inputMethodPanel", "instance": "my-ime", "overrideRedirect": true }
/// ] }
/// ```
public struct KeyboardRules: Sendable, Hashable {
    /// The rules in the order they are tried; the first match wins.
    public var rules: [KeyboardRule]

    /// Creates a rule list tried in the given order.
    public init(_ rules: [KeyboardRule]) {
        self.rules = rules
    }

    /// The built-in rules for the keyboards found on Debian: onboard (only its main window: the
    /// icon palette and popups are override-redirect), matchbox-keyboard (no WM_CLASS, title
    /// `Keyboard`, never takes input), xvkbd and caribou's antler keyboard.
    public static let builtIn = KeyboardRules([
        KeyboardRule(name: "onboard", windowClass: "Onboard", overrideRedirect: false, onscreenKeyboard: 1),
        KeyboardRule(name: "matchbox-keyboard", title: "Keyboard", hasClass: false, acceptsInput: false),
        KeyboardRule(name: "xvkbd", windowClass: "XVkbd"),
        KeyboardRule(name: "caribou", instance: "antler-keyboard", overrideRedirect: true),
        // Input-method panels are override-redirect popups placed at the text cursor; their
        // programs also own ordinary hidden windows of the same class, which never count.
        KeyboardRule(name: "fcitx5", kind: .inputMethodPanel, windowClass: "fcitx", overrideRedirect: true),
        KeyboardRule(name: "ibus", kind: .inputMethodPanel, instance: "ibus-ui-gtk3", overrideRedirect: true),
        KeyboardRule(
            name: "ibus-emoji", kind: .inputMethodPanel, instance: "ibus-extension-gtk3", overrideRedirect: true),
    ])

    /// The first rule that matches `window`, or nil when it is not a keyboard.
    public func match(_ window: X11WindowDescription) -> KeyboardRule? {
        rules.first { $0.matches(window) }
    }

    /// These rules with `userRules` tried first.
    public func adding(_ userRules: [KeyboardRule]) -> KeyboardRules {
        KeyboardRules(userRules + rules)
    }

    /// Where the user's rules file lives.
    public static func configFileURL(environment: [String: String]) -> URL {
        URL(fileURLWithPath: configFilePath(environment: environment))
    }

    /// Where the user's rules file lives, as an absolute path: `$XDG_CONFIG_HOME` (else
    /// `$HOME/.config`, else the user's home directory from the password database, `/.config`)
    /// and `keyboard-adapter/rules.json`; a relative base is taken from the working directory.
    /// Made from the text alone, without Foundation's URL, so that reading the rules at start-up
    /// costs no more of the program's code than it needs.
    public static func configFilePath(environment: [String: String]) -> String {
        var base =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? homeDirectory) + "/.config")
        if !base.hasPrefix("/") { base = workingDirectory + "/" + base }
        while base.count > 1, base.hasSuffix("/") { base.removeLast() }
        return (base == "/" ? "" : base) + "/keyboard-adapter/rules.json"
    }

    /// The user's home directory from the password database; `/` when it has none.
    private static var homeDirectory: String {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return "/" }
        return String(cString: directory)
    }

    /// The working directory; `/` when it cannot be read.
    private static var workingDirectory: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "/" }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// The largest rules file read (64 KiB): hundreds of rules; anything larger is not a rules file.
    public static let maximumFileSize = 64 * 1024

    /// Parses a rules file's contents. Throws a message naming what is wrong. Goes through the
    /// core's own JSON parser, which bounds depth and size and cannot crash, since the file is
    /// whatever the user (or a program running as the user) wrote. A key a rule cannot have (a
    /// misspelled condition would otherwise widen the match silently) is an error naming the key
    /// and its line.
    public static func parse(_ data: Data) throws(RulesFileError) -> [KeyboardRule] {
        guard data.count <= maximumFileSize else {
            throw RulesFileError(reason: "not a valid rules file: larger than \(maximumFileSize) bytes")
        }
        let bytes = [UInt8](data)
        let rules: [KeyboardRule]
        do throws(JSONParser.Failure) {
            let file = try JSONFields(JSONParser(maximumDepth: 8, maximumLength: maximumFileSize).parse(bytes))
            rules = try file.array("rules").enumerated().map { (index, value) throws(JSONParser.Failure) in
                let fields = try JSONFields(value, path: "rules[\(index)]")
                if let unknown = fields.keys.first(where: { !KeyboardRule.fileKeys.contains($0) }) {
                    let known = KeyboardRule.fileKeys.sorted().joined(separator: ", ")
                    throw JSONParser.Failure(
                        reason: "line \(line(ofKey: unknown, in: bytes)): \(fields.path) has the key "
                            + "\(JSONValue.string(unknown).rendered), which a rule cannot have (a rule has \(known))")
                }
                return try KeyboardRule(fields)
            }
        } catch {
            throw RulesFileError(reason: "not a valid rules file: \(error.reason)")
        }
        if let bad = rules.first(where: \.isUnconditional) {
            throw RulesFileError(
                reason: "rule \(JSONValue.string(bad.name).rendered) has no condition and would match every window")
        }
        return rules
    }

    /// The line of the first place `key` stands as a key (a quoted string followed by a colon).
    private static func line(ofKey key: String, in bytes: [UInt8]) -> Int {
        let quoted = Array(JSONValue.string(key).rendered.utf8)
        var index = 0
        while index + quoted.count <= bytes.count {
            if bytes[index..<index + quoted.count].elementsEqual(quoted) {
                var after = index + quoted.count
                while after < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[after]) { after += 1 }
                if after < bytes.count, bytes[after] == UInt8(ascii: ":") {
                    return 1 + bytes[..<index].count { $0 == 0x0A }
                }
            }
            index += 1
        }
        return 1 + bytes.count { $0 == 0x0A }
    }

    /// The built-in rules plus the user's rules file, if there is one. A broken file is reported
    /// in `problem` and ignored, so a typo never stops keyboards from being seen. Only a regular
    /// file of at most ``maximumFileSize`` bytes is read, opened without blocking: a FIFO, a
    /// device, a socket, a directory or a symbolic link loop in its place is ignored with a
    /// problem that says so, never waited on.
    public static func load(environment: [String: String]) -> (rules: KeyboardRules, problem: String?) {
        let path = configFilePath(environment: environment)
        let bytes: [UInt8]
        switch readRulesFile(path) {
        case .absent: return (builtIn, nil)
        case .unusable(let why): return (builtIn, "\(path): \(why); ignored")
        case .read(let read): bytes = read
        }
        do {
            return (builtIn.adding(try parse(Data(bytes))), nil)
        } catch {
            return (builtIn, "\(path): \(error)")
        }
    }

    private enum FileRead {
        case absent
        case unusable(String)
        case read([UInt8])
    }

    /// Reads the file at `path` when it is a regular file, at most one byte past the limit (a
    /// huge file costs nothing and is still refused).
    private static func readRulesFile(_ path: String) -> FileRead {
        var info = stat()
        guard stat(path, &info) == 0 else {
            switch errno {
            case ENOENT, ENOTDIR: return .absent
            case ELOOP: return .unusable("a loop of symbolic links")
            default: return .unusable("cannot be read (\(String(cString: strerror(errno))))")
            }
        }
        if let kind = notRegular(info.st_mode) { return .unusable("\(kind), not a regular file") }
        // Not blocking, and checked again once open, should the path have changed in between.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { return .unusable("cannot be read (\(String(cString: strerror(errno))))") }
        defer { close(fd) }
        guard fstat(fd, &info) == 0 else { return .unusable("cannot be read") }
        if let kind = notRegular(info.st_mode) { return .unusable("\(kind), not a regular file") }
        var bytes = [UInt8](repeating: 0, count: maximumFileSize + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { return .unusable("cannot be read (\(String(cString: strerror(errno))))") }
            if got == 0 { break }
            count += got
        }
        return .read(Array(bytes[0..<count]))
    }

    /// What a file of mode `mode` is when it is not a regular file, for people.
    private static func notRegular(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        default: "not a file"
        }
    }
}

/// What is wrong with a rules file.
public struct RulesFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One line for people.
    public var reason: String
    /// The reason.
    public var description: String { reason }
}
