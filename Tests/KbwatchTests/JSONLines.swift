import Foundation
import TestSupport

/// One parsed JSON object, with typed reads that give nil for anything else.
struct JSONLine: @unchecked Sendable {
    let values: [String: Any]
    /// The index just past the line this object came from.
    let index: Int

    init(_ values: [String: Any] = [:], index: Int = 0) {
        self.values = values
        self.index = index
    }

    init(_ text: String, index: Int = 0) throws {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw TestFailure("not a JSON object: \(text)")
        }
        self.init(object, index: index)
    }

    func string(_ key: String) -> String? { values[key] as? String }
    func int(_ key: String) -> Int? { values[key] as? Int }
    func object(_ key: String) -> JSONLine { JSONLine(values[key] as? [String: Any] ?? [:]) }
    func array(_ key: String) -> [JSONLine] { (values[key] as? [[String: Any]] ?? []).map { JSONLine($0) } }
    func rect(_ key: String) -> PrintedFrame? {
        let frame = object(key)
        guard let x = frame.int("x"), let y = frame.int("y"), let width = frame.int("width"),
            let height = frame.int("height")
        else { return nil }
        return PrintedFrame(x: x, y: y, width: width, height: height)
    }
}

/// A frame as kbwatch prints it.
struct PrintedFrame: Equatable, CustomStringConvertible {
    var x: Int
    var y: Int
    var width: Int
    var height: Int
    var description: String { "\(x),\(y) \(width)x\(height)" }
}

extension WatchedProcess {
    /// The first JSON line after line `index` whose event is `event`, waiting up to `timeout`.
    func next(_ event: String, after index: Int, timeout: Double = 10) throws -> JSONLine {
        var found: JSONLine?
        try Wait.require("kbwatch to print \(event) (\(errors); printed \(lines.all.map(\.text)))", timeout: timeout) {
            for (offset, line) in lines.all.enumerated().dropFirst(index) {
                if let object = try? JSONLine(line.text, index: offset + 1), object.string("event") == event {
                    found = object
                    return true
                }
            }
            return false
        }
        return found!
    }
}
