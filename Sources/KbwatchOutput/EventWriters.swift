import Glibc
import KeyboardAdapterCore
import KeyboardJSON

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Turns an update into one line of output. Every line is one line: whatever text other
/// programs put in names and ids, no writer emits a newline, a raw control character or a line
/// separator inside it.
package protocol EventWriter: Sendable {
    /// The line for one event.
    func line(for update: KeyboardUpdate) -> String
    /// Appends the line for one event and its newline to `line`: the same text as
    /// ``line(for:)``, which a writer may produce without making a `String` (kbwatch writes every
    /// event through one buffer it keeps).
    func write(_ update: KeyboardUpdate, into line: LineBuffer)
    /// The line for a layout change of a visible keyboard, nil when the format has none.
    func line(forLayoutChange state: KeyboardState, at date: Date) -> String?
    /// The lines for `--state`.
    func lines(forState keyboards: [KeyboardState]) -> [String]
    /// The lines for `--state` with what the keyboard services say.
    func lines(forState keyboards: [KeyboardState], services: [KeyboardServiceReport]) -> [String]
    /// The lines for `--state` with what the keyboard services say and the space reserved at
    /// output edges that no keyboard is known to fill.
    func lines(forState keyboards: [KeyboardState], services: [KeyboardServiceReport], reserved: [ReservedStrip])
        -> [String]
    /// The line for an intermediate frame of a transition (`--progress`).
    func line(forProgress progress: KeyboardProgress) -> String
}

extension EventWriter {
    /// ``line(for:)``'s text and a newline.
    package func write(_ update: KeyboardUpdate, into line: LineBuffer) {
        var text = self.line(for: update)
        text.withUTF8 { line.text.raw($0) }
        line.text.raw(byte: UInt8(ascii: "\n"))
    }

    /// ``lines(forState:services:)``, then one line per reserved strip:
    /// `reserved HEADLESS-1 bottom 0,550 1280x250: a docked keyboard or a panel (nothing says which)`.
    package func lines(
        forState keyboards: [KeyboardState], services: [KeyboardServiceReport], reserved: [ReservedStrip]
    ) -> [String] {
        lines(forState: keyboards, services: services)
            + reserved.map {
                "reserved \(TerminalText.escape($0.description)): a docked keyboard or a panel (nothing says which)"
            }
    }

    /// The keyboards, then one line per keyboard service that runs: `service onboard: running, visible, pid 4242`.
    package func lines(forState keyboards: [KeyboardState], services: [KeyboardServiceReport]) -> [String] {
        lines(forState: keyboards)
            + services.filter { $0.state.isRunning }.map {
                "service \(TerminalText.escape($0.name)): \(TerminalText.escape($0.state.description))"
            }
    }
}

/// The bytes of lines being written, kept from one line to the next so that writing a line
/// allocates nothing once the buffer has grown to a line's size. Used by one thread at a time
/// (kbwatch's run-loop thread): it is `Sendable` only so that a callback can hold it.
package final class LineBuffer: @unchecked Sendable {
    // @unchecked: kbwatch makes it before the manager's run (and its loop) exists and then writes
    // it from that loop's immediate callbacks only, one run at a time, so no loop can bind it.
    /// The text written so far.
    package var text = JSONText(capacity: 1024)
    /// The date and time of the last second a line was stamped with.
    package var second = Timestamp.SecondCache()
    /// The JSON of the parts of the last line that seldom change, for the next line.
    package var fragments = JSONFragments(kept: true)

    /// An empty buffer.
    package init() {}

    /// Forgets what was written, keeping the room.
    package func removeAll() { text.removeAll() }

    /// The bytes written so far, valid during `body` only.
    package func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try text.withBytes(body)
    }
}

/// One line per event for people: time, event, keyboard, frame, docked, local, output.
///
/// `14:02:07.513 didShow          matchbox-keyboard  0,560 1280x240  docked    local=?    screen`
package struct HumanWriter: EventWriter {
    /// Creates the writer.
    package init() {}

    /// One event.
    package func line(for update: KeyboardUpdate) -> String {
        var columns = [
            Timestamp.local(update.timestamp), pad(update.event.rawValue, 16),
            pad(TerminalText.escape(update.keyboard.name), 18), pad(frame(update.endFrame, update.geometry), 16),
            pad(docking(update.isDocked, update.geometry), 9), pad("local=" + local(update.isLocal), 9),
            update.output.map { TerminalText.escape($0.name) } ?? "-",
        ]
        if !update.event.isWill, update.animationDuration > 0 {
            columns.append(
                NumberText.fixed(update.animationDuration, digits: 3) + "s" + " " + update.animationCurve.rawValue)
        } else if update.timing == .predicted {
            // A will event's timing is a prediction, and says so.
            columns.append(
                "~" + NumberText.fixed(update.animationDuration, digits: 3) + "s " + update.animationCurve.rawValue
                    + " predicted")
        }
        if update.keyboard.kind == .inputMethodPanel { columns.append("(input-method panel)") }
        if update.geometry == .derivedUpperBound { columns.append(Self.upperBoundNote) }
        return columns.joined(separator: " ")
    }

    /// An intermediate frame: the event column reads `progress`, then the fraction done.
    package func line(forProgress progress: KeyboardProgress) -> String {
        [
            Timestamp.local(progress.timestamp), pad("progress", 16),
            pad(TerminalText.escape(progress.keyboard.name), 18),
            pad(progress.frame.description, 16),
            progress.fraction.map { NumberText.fixed($0 * 100, digits: 0) + "%" } ?? "?",
            "of " + progress.transition.rawValue,
        ].joined(separator: " ")
    }

    /// A layout change: the event column reads `layout`.
    package func line(forLayoutChange state: KeyboardState, at date: Date) -> String? {
        "\(Timestamp.local(date)) \(pad("layout", 16)) \(pad(TerminalText.escape(state.keyboard.name), 18)) "
            + (state.layout.map { TerminalText.escape($0.description) } ?? "unknown")
    }

    /// One line per visible keyboard.
    package func lines(forState keyboards: [KeyboardState]) -> [String] {
        keyboards.map { state in
            [
                pad(TerminalText.escape(state.keyboard.name), 18), pad(TerminalText.escape(state.keyboard.id), 18),
                pad(frame(state.frame, state.geometry), 16), pad(docking(state.isDocked, state.geometry), 9),
                pad("local=" + local(state.isLocal), 9), state.output.map { TerminalText.escape($0.name) } ?? "-",
            ]
            .joined(separator: " ") + (state.geometry == .derivedUpperBound ? " " + Self.upperBoundNote : "")
        }
    }

    private func local(_ value: Bool?) -> String { value.map { $0 ? "yes" : "no" } ?? "?" }

    /// Said after a frame that is an upper bound: the keyboard lies within it.
    static let upperBoundNote = "(at most: may include a panel)"

    /// `docked`, `floating`, or `?` when nothing tells where the keyboard is.
    private func docking(_ docked: Bool, _ geometry: GeometrySource) -> String {
        geometry == .unknown ? "?" : docked ? "docked" : "floating"
    }

    /// A frame, or `unknown place` when nothing tells where the keyboard is.
    private func frame(_ frame: Rect, _ geometry: GeometrySource) -> String {
        geometry == .unknown ? "unknown place" : frame.description
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}

/// JSON Lines, schema 1: one object per event, fields in the documented order.
package struct JSONWriter: EventWriter {
    /// The schema version printed in every object.
    package static let schema = 1

    /// Creates the writer.
    package init() {}

    /// One object per event.
    package func line(for update: KeyboardUpdate) -> String {
        var out = JSONText(capacity: 768)
        fields(update, event: update.event.jsonName, into: &out)
        out.raw(byte: UInt8(ascii: "}"))
        return out.string
    }

    /// One object per event and its newline, written straight into `line`.
    package func write(_ update: KeyboardUpdate, into line: LineBuffer) {
        fields(update, event: update.event.jsonName, into: &line.text, second: &line.second, fragments: &line.fragments)
        line.text.raw("}\n")
    }

    /// The event's fields in the documented order, after the opening brace and without the
    /// closing one; frames are null when the geometry is unknown. `endFramePredicted` and
    /// `timing` came after the first schema-1 fields, and `windowFrame` after them, written only
    /// when the keyboard's own window differs from its frame; readers that ignore unknown fields
    /// read on unchanged.
    private func fields(_ update: KeyboardUpdate, event: StaticString, into out: inout JSONText) {
        var second = Timestamp.SecondCache()
        var fragments = JSONFragments(kept: false)
        fields(update, event: event, into: &out, second: &second, fragments: &fragments)
    }

    private func fields(
        _ update: KeyboardUpdate, event: StaticString, into out: inout JSONText, second: inout Timestamp.SecondCache,
        fragments: inout JSONFragments
    ) {
        let known = update.hasKnownFrame
        out.raw("{\"schema\":")
        out.int(Self.schema)
        out.raw(",\"event\":")
        out.plain(event)
        out.raw(",\"time\":")
        Timestamp.appendISO(update.timestamp, to: &out, cache: &second)
        fragments.head(backend: update.backend, facts: update.state.facts, into: &out)
        if known {
            out.raw(",\"beginFrame\":")
            out.rect(update.beginFrame)
            out.raw(",\"endFrame\":")
            out.rect(update.endFrame)
        } else {
            out.raw(",\"beginFrame\":null,\"endFrame\":null")
        }
        out.raw(update.isVisible ? ",\"visible\":true" : ",\"visible\":false")
        out.raw(update.isDocked ? ",\"docked\":true" : ",\"docked\":false")
        switch update.isLocal {
        case true?: out.raw(",\"local\":true,\"animationDuration\":")
        case false?: out.raw(",\"local\":false,\"animationDuration\":")
        case nil: out.raw(",\"local\":null,\"animationDuration\":")
        }
        out.number((update.animationDuration * 1000).rounded() / 1000)
        out.raw(",\"animationCurve\":")
        out.plain(update.animationCurve.jsonName)
        fragments.layout(update.state.facts, into: &out)
        out.raw(",\"geometry\":")
        out.plain(update.geometry.jsonName)
        out.raw(update.isEndFramePredicted ? ",\"endFramePredicted\":true" : ",\"endFramePredicted\":false")
        out.raw(",\"timing\":")
        out.plain(update.timing.jsonName)
        if known, let window = update.state.windowFrame {
            out.raw(",\"windowFrame\":")
            out.rect(window)
        }
    }

    /// The same object as an event, `event` `progress`, `endFrame` the current frame,
    /// `animationDuration` the time elapsed, plus `transition` and `fraction` (null when the
    /// destination is not known).
    package func line(forProgress progress: KeyboardProgress) -> String {
        var out = JSONText(capacity: 800)
        fields(progress.asUpdate, event: "progress", into: &out)
        out.raw(",\"transition\":")
        out.string(progress.transition.rawValue)
        out.raw(",\"fraction\":")
        if let fraction = progress.fraction { out.number((fraction * 1000).rounded() / 1000) } else { out.null() }
        out.raw(byte: UInt8(ascii: "}"))
        return out.string
    }

    /// Layout changes are not among the six events of the schema, so JSON output leaves them out.
    package func line(forLayoutChange state: KeyboardState, at date: Date) -> String? { nil }

    /// One object: `{"schema":1,"visible":…,"keyboards":[…]}`.
    package func lines(forState keyboards: [KeyboardState]) -> [String] {
        lines(forState: keyboards, services: nil)
    }

    /// One object: `{"schema":1,"visible":…,"keyboards":[…],"services":[…]}`, each service with
    /// `name`, `address`, `status` (`unknown`, `noBus`, `notRunning`, `running`), `visible` and
    /// `pid` (null when unknown) and `problem` (null when none).
    package func lines(forState keyboards: [KeyboardState], services: [KeyboardServiceReport]) -> [String] {
        lines(forState: keyboards, services: Optional(services))
    }

    /// ``lines(forState:services:)``'s object with `reserved` when there is reserved space that no
    /// keyboard is known to fill: each strip's `output`, `edge` and `frame`.
    package func lines(
        forState keyboards: [KeyboardState], services: [KeyboardServiceReport], reserved: [ReservedStrip]
    ) -> [String] {
        lines(forState: keyboards, services: Optional(services), reserved: reserved)
    }

    private func lines(
        forState keyboards: [KeyboardState], services: [KeyboardServiceReport]?, reserved: [ReservedStrip] = []
    ) -> [String] {
        var fields = stateFields(keyboards)
        if let services { fields.append(("services", .array(services.map(Self.json)))) }
        if !reserved.isEmpty { fields.append(("reserved", .array(reserved.map(Self.json)))) }
        return [JSONValue.object(fields).rendered]
    }

    private static func json(_ strip: ReservedStrip) -> JSONValue {
        .object([("output", strip.output.json), ("edge", .string(strip.edge.rawValue)), ("frame", strip.frame.json)])
    }

    private static func json(_ service: KeyboardServiceReport) -> JSONValue {
        let (status, problem) = service.state.reportedStatus
        return .object([
            ("name", .string(service.name)), ("keyboard", .optional(service.keyboard, JSONValue.string)),
            ("address", .string(service.address)), ("status", .string(status)),
            ("visible", .optional(service.state.isVisible, JSONValue.bool)),
            ("pid", .optional(service.state.pid) { .int(Int($0)) }), ("problem", .optional(problem, JSONValue.string)),
        ])
    }

    private func stateFields(_ keyboards: [KeyboardState]) -> [(String, JSONValue)] {
        [
            ("schema", .int(Self.schema)), ("visible", .bool(!keyboards.isEmpty)),
            ("keyboards", Self.keyboards(keyboards)),
        ]
    }

    /// Each keyboard's fields; `windowFrame` only where the keyboard's own window differs from
    /// its frame.
    private static func keyboards(_ keyboards: [KeyboardState]) -> JSONValue {
        .array(
            keyboards.map { state in
                let window = state.hasKnownFrame ? state.windowFrame : nil
                return .object(
                    [
                        ("keyboard", state.keyboard.json),
                        ("output", .optional(state.output, \.json)),
                        ("frame", state.hasKnownFrame ? state.frame.json : .null),
                        ("docked", .bool(state.isDocked)),
                        ("local", .optional(state.isLocal, JSONValue.bool)),
                        ("layout", .optional(state.layout, \.json)),
                        ("geometry", .string(state.geometry.rawValue)),
                    ] + (window.map { [("windowFrame", $0.json)] } ?? []))
            })
    }
}

/// A template with `%` fields, slurp style, for shell use. Untrusted text is escaped as in the
/// human format.
package struct FormatWriter: EventWriter {
    /// The fields, documented in `--help` and the man page.
    package static let fields: [(Character, String)] = [
        ("e", "event"), ("t", "time (ISO 8601, UTC)"), ("n", "keyboard name"), ("i", "keyboard id"),
        ("k", "kind (keyboard or inputMethodPanel)"), ("p", "pid or -"), ("x", "end frame x"), ("y", "end frame y"),
        ("w", "end frame width"), ("h", "end frame height"), ("f", "end frame as x,y WxH"),
        ("b", "begin frame as x,y WxH"), ("d", "docked or floating"), ("l", "local: yes, no or unknown"),
        ("o", "output name or -"), ("v", "visible: yes or no"), ("a", "animation duration in seconds"),
        ("c", "animation curve"), ("g", "geometry: reported, derived, derivedUpperBound or unknown"),
        ("L", "layout name or -"),
        ("W", "the keyboard's own window as x,y WxH, or - when it is the whole end frame"),
        ("B", "backend"), ("r", "fraction done (progress lines; - otherwise)"), ("%", "a literal %"),
    ]

    /// The template with `\n` and `\t` already turned into a newline and a tab.
    package let template: String

    /// A writer for `template`, whose `\n` and `\t` become a newline and a tab.
    package init(template: String) {
        // Most templates have no backslash: they are taken as they are, without the string
        // processing library's search (which kbwatch then never maps).
        self.template =
            template.utf8.contains(UInt8(ascii: "\\"))
            ? template.replacing("\\n", with: "\n").replacing("\\t", with: "\t") : template
    }

    /// The template filled in for an intermediate frame: `%e` reads `progress`, the frame fields
    /// are the current frame, `%a` the time elapsed and `%r` the fraction done.
    package func line(forProgress progress: KeyboardProgress) -> String {
        fill(progress.asUpdate, progress: progress)
    }

    /// The template with its fields filled in.
    package func line(for update: KeyboardUpdate) -> String { fill(update, progress: nil) }

    private func fill(_ update: KeyboardUpdate, progress: KeyboardProgress?) -> String {
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
            switch (field, progress) {
            case ("e", .some): out += "progress"
            case ("r", .some(let progress)): out += progress.fraction.map { NumberText.fixed($0, digits: 3) } ?? "-"
            case ("r", .none): out += "-"
            default: out += value(field, update) ?? "%\(field)"
            }
        }
        return out
    }

    /// Layout changes have no template: none is printed.
    package func line(forLayoutChange state: KeyboardState, at date: Date) -> String? { nil }

    /// `--state` prints the human lines.
    package func lines(forState keyboards: [KeyboardState]) -> [String] { HumanWriter().lines(forState: keyboards) }

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
        case "W": u.windowFrame.map(\.description) ?? "-"
        case "B": TerminalText.escape(u.backend)
        case "%": "%"
        default: nil
        }
    }
}

extension KeyboardProgress {
    /// The progress as an update of its transition whose end frame is the current frame and
    /// whose duration is the time elapsed, so that writers print it with the event's fields.
    var asUpdate: KeyboardUpdate {
        KeyboardUpdate(
            event: transition, state: state, backend: backend, beginFrame: beginFrame, endFrame: frame,
            isEndFramePredicted: false, animationDuration: elapsed, animationCurve: .unknown, timing: .measured,
            isVisible: transition != .willHide, timestamp: timestamp)
    }
}

extension KeyboardServiceState {
    /// The status as kbwatch's JSON and the session service name it (`unknown`, `noBus`,
    /// `notRunning`, `running`), and the problem reported with it: a bus that cannot be used is
    /// one, its reason.
    package var reportedStatus: (name: String, problem: String?) {
        switch status {
        case .unknown: ("unknown", problem)
        case .busUnavailable(let reason): ("noBus", problem ?? reason)
        case .notRunning: ("notRunning", problem)
        case .running: ("running", problem)
        }
    }
}

/// The JSON of the parts of a line that seldom change from one line to the next (the backend, the
/// keyboard and its output; the layout), kept from the last line when `kept`: a line for the same
/// keyboard on the same output copies them instead of writing them again, byte for byte the same.
package struct JSONFragments: Sendable {
    private let kept: Bool
    /// The backend of the kept head.
    private var backend: String?
    /// The facts the kept head was written from: facts that share their storage write the same.
    private var headFacts: KeyboardFacts?
    private var headBytes: [UInt8] = []
    /// The facts the kept layout was written from.
    private var layoutFacts: KeyboardFacts?
    private var layoutBytes: [UInt8] = []

    /// Fragments kept from line to line when `kept`, written afresh every time otherwise.
    package init(kept: Bool) { self.kept = kept }

    /// `,"backend":…,"keyboard":{…},"output":{…}`.
    mutating func head(backend: String, facts: KeyboardFacts, into out: inout JSONText) {
        if let headFacts, self.backend == backend,
            headFacts.isShared(with: facts)
                || (headFacts.keyboard == facts.keyboard && headFacts.output == facts.output)
        {
            return headBytes.withUnsafeBufferPointer { out.raw($0) }
        }
        let start = out.count
        out.raw(",\"backend\":")
        out.string(backend)
        out.raw(",\"keyboard\":")
        out.keyboard(facts.keyboard)
        out.raw(",\"output\":")
        out.output(facts.output)
        guard kept else { return }
        self.backend = backend
        headFacts = facts
        headBytes = out.bytes(from: start)
    }

    /// `,"layout":{…}` or `,"layout":null`.
    mutating func layout(_ facts: KeyboardFacts, into out: inout JSONText) {
        if let layoutFacts, layoutFacts.isShared(with: facts) || layoutFacts.layout == facts.layout {
            return layoutBytes.withUnsafeBufferPointer { out.raw($0) }
        }
        let start = out.count
        out.raw(",\"layout\":")
        out.layout(facts.layout)
        guard kept else { return }
        layoutFacts = facts
        layoutBytes = out.bytes(from: start)
    }
}
