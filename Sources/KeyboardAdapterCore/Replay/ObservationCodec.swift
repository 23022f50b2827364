import Glibc

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The recording format: JSON Lines, one observation per line, times in seconds relative to the
/// first line. A line looks like this (documented in the README):
///
/// ```json
/// {"t":0.25,"keyboard":{"id":"x11:0x1c00003","name":"xvkbd","kind":"keyboard","pid":null},
///  "frame":{"x":0,"y":560,"width":1280,"height":240},"docked":true,"edge":"bottom",
///  "output":{"name":"screen","x":0,"y":0,"width":1280,"height":800},"geometry":"reported",
///  "local":null,"layout":null}
/// ```
/// `frame` is required and null when the keyboard is not shown; `docked`, `edge`, `output`,
/// `local` and `layout` may be null or left out. `"shown":true` with a null frame (and geometry
/// `unknown`) says the keyboard is up at an unknown place.
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
            ] + shown
        ).rendered
    }

    /// Reads one line. `previousTime` is the time of the line before, to reject time going backwards.
    public static func decode(_ text: Substring, lineNumber: Int, previousTime: Double?) throws(LineError)
        -> KeyboardObservation
    {
        let line: Line
        do {
            line = try JSONDecoder().decode(Line.self, from: Data(text.utf8))
        } catch let error as DecodingError {
            throw LineError(line: lineNumber, reason: describe(error))
        } catch let error as LineError {
            throw LineError(line: lineNumber, reason: error.reason)
        } catch {
            throw LineError(line: lineNumber, reason: "not valid JSON")
        }
        guard line.t.isFinite, line.t >= 0 else {
            throw LineError(line: lineNumber, reason: "time \(line.t) is not a non-negative number of seconds")
        }
        if let previousTime, line.t < previousTime {
            throw LineError(line: lineNumber, reason: "time goes backwards (\(line.t) after \(previousTime))")
        }
        for (name, rect) in [("frame", line.frame), ("output", line.output?.rect)] {
            guard let rect else { continue }
            if rect.width < 0 || rect.height < 0 {
                throw LineError(line: lineNumber, reason: "negative size in \(name) (\(rect.width)x\(rect.height))")
            }
            // Display servers use 16- and 32-bit coordinates; anything larger is not a real frame
            // (and would overflow the frame arithmetic).
            if ![rect.x, rect.y, rect.width, rect.height].allSatisfy({ abs($0) <= Self.coordinateLimit }) {
                throw LineError(line: lineNumber, reason: "coordinates out of range in \(name)")
            }
        }
        if line.keyboard.id.isEmpty {
            throw LineError(line: lineNumber, reason: "empty keyboard id")
        }
        return line.observation
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context, _ key: CodingKey? = nil) -> String {
            let keys = context.codingPath.map(\.stringValue) + (key.map { [$0.stringValue] } ?? [])
            return keys.filter { !$0.isEmpty }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing field '\(path(context, key))'"
        case .valueNotFound(_, let context): return "field '\(path(context))' is null"
        case .typeMismatch(_, let context):
            return context.codingPath.isEmpty ? "not a JSON object" : "field '\(path(context))' has the wrong type"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? "not valid JSON" : "field '\(path(context))': \(context.debugDescription)"
        @unknown default: return "not a valid observation"
        }
    }

    /// The line's shape on disk.
    private struct Line: Decodable {
        var t: Double
        var keyboard: KeyboardIdentity
        var frame: Rect?
        var docked: Bool?
        var edge: Edge?
        var output: FlatOutput?
        var geometry: GeometrySource
        var local: Bool?
        var layout: InputLayout?
        var shown: Bool?

        enum CodingKeys: String, CodingKey {
            case t, keyboard, frame, docked, edge, output, geometry, local, layout, shown
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            t = try c.decode(Double.self, forKey: .t)
            keyboard = try c.decode(KeyboardIdentity.self, forKey: .keyboard)
            // `frame` must be present (null means hidden): a line without it is malformed.
            guard c.contains(.frame) else {
                throw DecodingError.keyNotFound(CodingKeys.frame, .init(codingPath: [], debugDescription: ""))
            }
            frame = try c.decodeIfPresent(Rect.self, forKey: .frame)
            docked = try c.decodeIfPresent(Bool.self, forKey: .docked)
            edge = try c.decodeIfPresent(Edge.self, forKey: .edge)
            output = try c.decodeIfPresent(FlatOutput.self, forKey: .output)
            geometry = try c.decode(GeometrySource.self, forKey: .geometry)
            local = try c.decodeIfPresent(Bool.self, forKey: .local)
            layout = try c.decodeIfPresent(InputLayout.self, forKey: .layout)
            shown = try c.decodeIfPresent(Bool.self, forKey: .shown)
        }

        var observation: KeyboardObservation {
            KeyboardObservation(
                time: t, keyboard: keyboard, frame: frame, isDocked: docked, dockedEdge: edge,
                output: output.map { Output(name: $0.name, frame: $0.rect) }, geometry: geometry,
                isLocal: local, layout: layout, isShown: frame != nil || shown == true)
        }
    }

    /// An output as one flat object, as in kbwatch's JSON.
    private struct FlatOutput: Decodable {
        var name: String
        var x: Int
        var y: Int
        var width: Int
        var height: Int

        var rect: Rect { Rect(x: x, y: y, width: width, height: height) }
    }
}
