import KeyboardAdapterCore
import KeyboardJSON

/// The recording format: JSON Lines, one observation per line, times in seconds relative to the
/// first line. A line looks like this (documented in docs/kbwatch.md):
///
/// ```json
/// {"t":0.25,"keyboard":{"id":"x11:0x1c00003","name":"xvkbd","kind":"keyboard","pid":null},
///  "frame":{"x":0,"y":560,"width":1280,"height":240},"docked":true,"edge":"bottom",
///  "output":{"name":"screen","x":0,"y":0,"width":1280,"height":800},"geometry":"reported",
///  "local":null,"layout":null}
/// ```
/// `"shown":true` with a null frame (and geometry `unknown`) says the keyboard is up at an unknown
/// place; `"to"`, a rectangle, says where the display server is moving it (GNOME Shell's slide);
/// `"window"`, a rectangle, is the keyboard's own window where it differs from the frame (X11: the
/// window without its window manager's title bar and borders). `frame` is required and null when
/// the keyboard is not shown; `docked`, `edge`, `output`, `local` and `layout` may be null or left
/// out.
public enum ObservationCodec {
    /// Why a line could not be read.
    public struct LineError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The line's number, from 1.
        public var line: Int
        /// Why it was rejected.
        public var reason: String

        /// Creates an error.
        public init(line: Int, reason: String) {
            self.line = line
            self.reason = reason
        }

        /// `line N: reason`.
        public var description: String { "line \(line): \(reason)" }
    }

    /// The largest coordinate or size a line may hold (2^30): far beyond any screen, far from overflow.
    public static let coordinateLimit = 1 << 30

    /// One line of the format, without its trailing newline; fields in the documented order.
    public static func encode(_ observation: KeyboardObservation, relativeTo origin: Double) -> String {
        let o = observation
        let time = ((o.time - origin) * 1_000_000).rounded() / 1_000_000
        // `shown` is written only where it adds something (a visible keyboard at an unknown
        // place), so recordings of every other observation read as before.
        let shown: [(String, JSONValue)] = o.frame == nil && o.isShown ? [("shown", .bool(true))] : []
        // Likewise `to`, only where the display server named where the keyboard is going.
        let destination: [(String, JSONValue)] = o.destination.map { [("to", $0.json)] } ?? []
        // And `window`, only where the keyboard's own window differs from its frame.
        let window: [(String, JSONValue)] = o.windowFrame.map { [("window", $0.json)] } ?? []
        return JSONValue.object(
            [
                ("t", .number(time)),
                ("keyboard", o.keyboard.json),
                ("frame", .optional(o.frame, \.json)),
                ("docked", .optional(o.isDocked, JSONValue.bool)),
                ("edge", .optional(o.dockedEdge) { .string($0.rawValue) }),
                ("output", .optional(o.output, \.json)),
                ("geometry", .string(o.geometry.rawValue)),
                ("local", .optional(o.isLocal, JSONValue.bool)),
                ("layout", .optional(o.layout, \.json)),
            ] + shown + destination + window
        ).rendered
    }

    /// The latest time a line may hold, in seconds since the first line (10^9 s, about 31 years):
    /// far beyond any recording, and small enough that times keep microsecond precision and every
    /// duration derived from them stays finite.
    public static let timeLimit: Double = 1_000_000_000

    /// The parser for lines: the line length limit is the reader's, the depth limit is far above
    /// the format's three levels.
    private static let parser = JSONParser(maximumDepth: 16, maximumLength: maximumLineLength)

    /// The longest line accepted (1 MiB), also when a line is handed over without a reader.
    public static let maximumLineLength = 1 << 20

    /// Reads one line. `previousTime` is the time of the line before, to reject time going backwards.
    public static func decode(_ text: Substring, lineNumber: Int, previousTime: Double?) throws(LineError)
        -> KeyboardObservation
    {
        let observation: KeyboardObservation
        do throws(JSONParser.Failure) {
            if text.utf8.count > maximumLineLength {
                throw JSONParser.Failure(reason: "a line longer than \(maximumLineLength) bytes")
            }
            observation = try read(JSONFields(parser.parse(text)))
        } catch {
            throw LineError(line: lineNumber, reason: error.reason)
        }
        if let previousTime, observation.time < previousTime {
            throw LineError(
                line: lineNumber, reason: "time goes backwards (\(observation.time) after \(previousTime))")
        }
        return observation
    }

    /// Reads the fields of one line, checking every value's range.
    private static func read(_ line: JSONFields) throws(JSONParser.Failure) -> KeyboardObservation {
        let t = try line.double("t")
        guard t >= 0, t <= timeLimit else {
            throw JSONParser.Failure(
                reason: "time \(t) is not a number of seconds from 0 to \(Int(timeLimit))")
        }
        let keyboardFields = try line.object("keyboard")
        let keyboard = KeyboardIdentity(
            id: try keyboardFields.string("id"), name: try keyboardFields.string("name"),
            kind: try keyboardFields.choice("kind", as: KeyboardKind.self),
            pid: try keyboardFields.optionalInt("pid", in: Int(Int32.min)...Int(Int32.max)).map { Int32($0) })
        if keyboard.id.isEmpty { throw JSONParser.Failure(reason: "empty keyboard id") }
        // `frame` must be present (null means hidden): a line without it is malformed.
        guard line.contains("frame") else { throw JSONParser.Failure(reason: "missing field 'frame'") }
        let frame = try line.optionalObject("frame").map { fields throws(JSONParser.Failure) in try rect(fields) }
        let output = try line.optionalObject("output").map { fields throws(JSONParser.Failure) in
            Output(name: try fields.string("name"), frame: try rect(fields))
        }
        let layout = try line.optionalObject("layout").map { fields throws(JSONParser.Failure) in
            InputLayout(name: try fields.string("name"), code: try fields.optionalString("code"))
        }
        let shown = try line.optionalBool("shown") == true
        let destination = try line.optionalObject("to").map { fields throws(JSONParser.Failure) in try rect(fields) }
        let window = try line.optionalObject("window").map { fields throws(JSONParser.Failure) in try rect(fields) }
        return KeyboardObservation(
            time: t, keyboard: keyboard, frame: frame, isDocked: try line.optionalBool("docked"),
            dockedEdge: try line.optionalChoice("edge", as: Edge.self), output: output,
            geometry: try line.choice("geometry", as: GeometrySource.self),
            isLocal: try line.optionalBool("local"), layout: layout,
            isShown: frame != nil || shown, destination: destination, windowFrame: frame == nil ? nil : window)
    }

    /// A rectangle's four fields, checked: sizes not negative, every number within ±2^30.
    private static func rect(_ fields: JSONFields) throws(JSONParser.Failure) -> Rect {
        let rect = Rect(
            x: try fields.int("x"), y: try fields.int("y"), width: try fields.int("width"),
            height: try fields.int("height"))
        if rect.width < 0 || rect.height < 0 {
            throw JSONParser.Failure(reason: "negative size in \(fields.path) (\(rect.width)x\(rect.height))")
        }
        // Display servers use 16- and 32-bit coordinates; anything larger is not a real frame
        // (and would overflow the frame arithmetic). `magnitude`, unlike `abs`, cannot trap on Int.min.
        if ![rect.x, rect.y, rect.width, rect.height].allSatisfy({ $0.magnitude <= UInt(coordinateLimit) }) {
            throw JSONParser.Failure(reason: "coordinates out of range in \(fields.path)")
        }
        return rect
    }
}
