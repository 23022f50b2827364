import Glibc
import KeyboardAdapter

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Turns an update into one line of output.
protocol EventWriter: Sendable {
    func line(for update: KeyboardUpdate) -> String
    func line(forLayoutChange state: KeyboardState, at date: Date) -> String?
    func lines(forState keyboards: [KeyboardState]) -> [String]
}

/// One line per event for people: time, event, keyboard, frame, docked, local, output.
///
/// `14:02:07.513 didShow          matchbox-keyboard  0,560 1280x240  docked    local=?    screen`
struct HumanWriter: EventWriter {
    func line(for update: KeyboardUpdate) -> String {
        var columns = [
            Timestamp.local(update.timestamp), pad(update.event.rawValue, 16),
            pad(TerminalText.escape(update.keyboard.name), 18), pad(update.endFrame.description, 16),
            pad(update.isDocked ? "docked" : "floating", 9), pad("local=" + local(update.isLocal), 9),
            update.output.map { TerminalText.escape($0.name) } ?? "-",
        ]
        if !update.event.isWill, update.animationDuration > 0 {
            columns.append(
                NumberText.fixed(update.animationDuration, digits: 3) + "s" + " " + update.animationCurve.rawValue)
        }
        if update.keyboard.kind == .inputMethodPanel { columns.append("(input-method panel)") }
        return columns.joined(separator: " ")
    }

    func line(forLayoutChange state: KeyboardState, at date: Date) -> String? {
        "\(Timestamp.local(date)) \(pad("layout", 16)) \(pad(TerminalText.escape(state.keyboard.name), 18)) "
            + (state.layout.map { TerminalText.escape($0.description) } ?? "unknown")
    }

    func lines(forState keyboards: [KeyboardState]) -> [String] {
        keyboards.map { state in
            [
                pad(TerminalText.escape(state.keyboard.name), 18), pad(TerminalText.escape(state.keyboard.id), 18),
                pad(state.frame.description, 16), pad(state.isDocked ? "docked" : "floating", 9),
                pad("local=" + local(state.isLocal), 9), state.output.map { TerminalText.escape($0.name) } ?? "-",
            ]
            .joined(separator: " ")
        }
    }

    private func local(_ value: Bool?) -> String { value.map { $0 ? "yes" : "no" } ?? "?" }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}

/// JSON Lines, schema 1: one object per event, fields in the documented order.
struct JSONWriter: EventWriter {
    static let schema = 1

    func line(for update: KeyboardUpdate) -> String {
        JSONValue.object([
            ("schema", .int(Self.schema)),
            ("event", .string(update.event.rawValue)),
            ("time", .string(Timestamp.iso(update.timestamp))),
            ("backend", .string(update.backend)),
            ("keyboard", update.keyboard.json),
            ("output", .optional(update.output, \.json)),
            ("beginFrame", update.beginFrame.json),
            ("endFrame", update.endFrame.json),
            ("visible", .bool(update.isVisible)),
            ("docked", .bool(update.isDocked)),
            ("local", .optional(update.isLocal, JSONValue.bool)),
            ("animationDuration", .number((update.animationDuration * 1000).rounded() / 1000)),
            ("animationCurve", .string(update.animationCurve.rawValue)),
            ("layout", .optional(update.layout, \.json)),
            ("geometry", .string(update.geometry.rawValue)),
        ]).rendered
    }

    /// Layout changes are not among the six events of the schema, so JSON output leaves them out.
    func line(forLayoutChange state: KeyboardState, at date: Date) -> String? { nil }

    func lines(forState keyboards: [KeyboardState]) -> [String] {
        [
            JSONValue.object([
                ("schema", .int(Self.schema)),
                ("visible", .bool(!keyboards.isEmpty)),
                (
                    "keyboards",
                    .array(
                        keyboards.map { state in
                            .object([
                                ("keyboard", state.keyboard.json),
                                ("output", .optional(state.output, \.json)),
                                ("frame", state.frame.json),
                                ("docked", .bool(state.isDocked)),
                                ("local", .optional(state.isLocal, JSONValue.bool)),
                                ("layout", .optional(state.layout, \.json)),
                                ("geometry", .string(state.geometry.rawValue)),
                            ])
                        })
                ),
            ]).rendered
        ]
    }
}

/// A template with `%` fields, slurp style, for shell use. Untrusted text is escaped as in the
/// human format.
struct FormatWriter: EventWriter {
    /// The fields, documented in `--help` and the man page.
    static let fields: [(Character, String)] = [
        ("e", "event"), ("t", "time (ISO 8601, UTC)"), ("n", "keyboard name"), ("i", "keyboard id"),
        ("k", "kind (keyboard or inputMethodPanel)"), ("p", "pid or -"), ("x", "end frame x"), ("y", "end frame y"),
        ("w", "end frame width"), ("h", "end frame height"), ("f", "end frame as x,y WxH"),
        ("b", "begin frame as x,y WxH"), ("d", "docked or floating"), ("l", "local: yes, no or unknown"),
        ("o", "output name or -"), ("v", "visible: yes or no"), ("a", "animation duration in seconds"),
        ("c", "animation curve"), ("g", "geometry: reported, derived or unknown"), ("L", "layout name or -"),
        ("B", "backend"), ("%", "a literal %"),
    ]

    /// The template with `\n` and `\t` already turned into a newline and a tab.
    let template: String

    init(template: String) {
        self.template = template.replacing("\\n", with: "\n").replacing("\\t", with: "\t")
    }

    func line(for update: KeyboardUpdate) -> String {
        var out = ""
        var iterator = template.makeIterator()
        while let character = iterator.next() {
            guard character == "%" else {
                out.append(character)
                continue
            }
            guard let field = iterator.next() else {
                out.append("%")
                break
            }
            out += value(field, update) ?? "%\(field)"
        }
        return out
    }

    func line(forLayoutChange state: KeyboardState, at date: Date) -> String? { nil }

    func lines(forState keyboards: [KeyboardState]) -> [String] { HumanWriter().lines(forState: keyboards) }

    private func value(_ field: Character, _ u: KeyboardUpdate) -> String? {
        switch field {
        case "e": u.event.rawValue
        case "t": Timestamp.iso(u.timestamp)
        case "n": TerminalText.escape(u.keyboard.name)
        case "i": TerminalText.escape(u.keyboard.id)
        case "k": u.keyboard.kind.rawValue
        case "p": u.keyboard.pid.map(String.init) ?? "-"
        case "x": String(u.endFrame.x)
        case "y": String(u.endFrame.y)
        case "w": String(u.endFrame.width)
        case "h": String(u.endFrame.height)
        case "f": u.endFrame.description
        case "b": u.beginFrame.description
        case "d": u.isDocked ? "docked" : "floating"
        case "l": u.isLocal.map { $0 ? "yes" : "no" } ?? "unknown"
        case "o": u.output.map { TerminalText.escape($0.name) } ?? "-"
        case "v": u.isVisible ? "yes" : "no"
        case "a": NumberText.fixed(u.animationDuration, digits: 3)
        case "c": u.animationCurve.rawValue
        case "g": u.geometry.rawValue
        case "L": u.layout.map { TerminalText.escape($0.name) } ?? "-"
        case "B": TerminalText.escape(u.backend)
        case "%": "%"
        default: nil
        }
    }
}

/// Time stamps for output lines.
enum Timestamp {
    /// `2026-11-30T06:50:01.123Z`.
    static func iso(_ date: Date) -> String { format(date, utc: true) }

    /// `07:50:01.123` in local time.
    static func local(_ date: Date) -> String { format(date, utc: false) }

    private static func format(_ date: Date, utc: Bool) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        if utc { gmtime_r(&seconds, &parts) } else { localtime_r(&seconds, &parts) }
        let ms = Int(milliseconds % 1000)
        let clock =
            NumberText.zeroPadded(parts.tm_hour, width: 2) + ":" + NumberText.zeroPadded(parts.tm_min, width: 2) + ":"
            + NumberText.zeroPadded(parts.tm_sec, width: 2) + "." + NumberText.zeroPadded(ms, width: 3)
        guard utc else { return clock }
        let day =
            NumberText.zeroPadded(parts.tm_year + 1900, width: 4) + "-"
            + NumberText.zeroPadded(parts.tm_mon + 1, width: 2)
            + "-" + NumberText.zeroPadded(parts.tm_mday, width: 2)
        return day + "T" + clock + "Z"
    }
}
