import Glibc
import KeyboardAdapterCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads back what ``JSONWriter`` writes (schema 1): an event or a progress line as the update
/// or progress value it came from, so that lines received from elsewhere (the session service)
/// print in any of kbwatch's formats. Bounded: lines of at most 64 KiB, nesting of at most 8.
public enum JSONLineReader {
    /// One line read back.
    public enum Line: Sendable {
        /// One of the six events.
        case update(KeyboardUpdate)
        /// A frame in between a will and its did.
        case progress(KeyboardProgress)
    }

    private static let parser = JSONParser(maximumDepth: 8, maximumLength: 64 * 1024)

    /// The update or progress `text` describes; throws with the reason when it is not a schema-1
    /// event or progress line.
    public static func read(_ text: String) throws -> Line {
        let fields = try JSONFields(parser.parse(text[...]))
        guard try fields.int("schema") == JSONWriter.schema else { throw JSONParser.Failure(reason: "not schema 1") }
        let known = fields.value("endFrame") != nil
        let state = KeyboardState(
            keyboard: try keyboard(fields.object("keyboard")),
            frame: known ? try rect(fields.object("endFrame")) : .zero, isDocked: try fields.bool("docked"),
            isLocal: try fields.optionalBool("local"), output: try fields.optionalObject("output").map(output),
            layout: try fields.optionalObject("layout").map(layout),
            geometry: try fields.choice("geometry", as: GeometrySource.self))
        let begin = known ? try rect(fields.object("beginFrame")) : Rect.zero
        let timestamp = date(try fields.string("time"))
        let backend = try fields.string("backend")
        let predicted = try fields.bool("endFramePredicted")
        let event = try fields.string("event")
        if event == "progress" {
            return .progress(
                KeyboardProgress(
                    transition: try fields.choice("transition", as: KeyboardEvent.self), state: state,
                    beginFrame: begin, endFrame: state.frame, isEndFramePredicted: predicted,
                    fraction: fields.value("fraction").flatMap(number),
                    elapsed: try fields.double("animationDuration"), backend: backend, timestamp: timestamp))
        }
        return .update(
            KeyboardUpdate(
                event: try fields.choice("event", as: KeyboardEvent.self), state: state, backend: backend,
                beginFrame: begin, endFrame: state.frame, isEndFramePredicted: predicted,
                animationDuration: try fields.double("animationDuration"),
                animationCurve: try fields.choice("animationCurve", as: AnimationCurve.self),
                timing: try fields.choice("timing", as: TimingSource.self), isVisible: try fields.bool("visible"),
                timestamp: timestamp))
    }

    /// The visible keyboards of a state object (`lines(forState:)`), in its order.
    public static func readState(_ text: String) throws -> [KeyboardState] {
        let fields = try JSONFields(parser.parse(text[...]))
        guard try fields.int("schema") == JSONWriter.schema else { throw JSONParser.Failure(reason: "not schema 1") }
        return try fields.array("keyboards").map { value in
            let keyboard = try JSONFields(value, path: "keyboards")
            return KeyboardState(
                keyboard: try self.keyboard(keyboard.object("keyboard")),
                frame: try keyboard.optionalObject("frame").map(rect) ?? .zero, isDocked: try keyboard.bool("docked"),
                isLocal: try keyboard.optionalBool("local"), output: try keyboard.optionalObject("output").map(output),
                layout: try keyboard.optionalObject("layout").map(layout),
                geometry: try keyboard.choice("geometry", as: GeometrySource.self))
        }
    }

    private static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let number): Double(number)
        case .number(let number): number
        default: nil
        }
    }

    private static func rect(_ fields: JSONFields) throws(JSONParser.Failure) -> Rect {
        let range = -(1 << 24)...(1 << 24)
        return Rect(
            x: try fields.int("x", in: range), y: try fields.int("y", in: range),
            width: try fields.int("width", in: 0...(1 << 24)), height: try fields.int("height", in: 0...(1 << 24)))
    }

    private static func keyboard(_ fields: JSONFields) throws(JSONParser.Failure) -> KeyboardIdentity {
        KeyboardIdentity(
            id: try fields.string("id"), name: try fields.string("name"),
            kind: try fields.choice("kind", as: KeyboardKind.self),
            pid: try fields.optionalInt("pid", in: 1...Int(Int32.max)).map(Int32.init))
    }

    private static func output(_ fields: JSONFields) throws(JSONParser.Failure) -> Output {
        Output(name: try fields.string("name"), frame: try rect(fields))
    }

    private static func layout(_ fields: JSONFields) throws(JSONParser.Failure) -> InputLayout {
        InputLayout(name: try fields.string("name"), code: try fields.optionalString("code"))
    }

    /// The time of `2026-11-30T06:50:01.123Z`, to the millisecond; now when it does not read.
    private static func date(_ text: String) -> Date {
        let digits = text.utf8.map { Int($0) - 48 }
        guard text.utf8.count == 24,
            digits.indices.allSatisfy({ [4, 7, 10, 13, 16, 19, 23].contains($0) || (0...9).contains(digits[$0]) })
        else { return Date() }
        func value(_ range: Range<Int>) -> Int { range.reduce(0) { $0 * 10 + digits[$1] } }
        var parts = tm()
        parts.tm_year = Int32(value(0..<4) - 1900)
        parts.tm_mon = Int32(value(5..<7) - 1)
        parts.tm_mday = Int32(value(8..<10))
        parts.tm_hour = Int32(value(11..<13))
        parts.tm_min = Int32(value(14..<16))
        parts.tm_sec = Int32(value(17..<19))
        let seconds = timegm(&parts)
        return Date(timeIntervalSince1970: Double(seconds) + Double(value(20..<23)) / 1000)
    }
}
