import Foundation
import KeyboardAdapterCore
import KeyboardReplay

/// Recordings written to temporary files for CLI tests.
enum Recordings {
    static let screen = Output(name: "screen", frame: Rect(x: 0, y: 0, width: 1280, height: 800))
    static let keyboard = KeyboardIdentity(id: "x11:0x1c00003", name: "matchbox-keyboard", kind: .keyboard, pid: 1234)
    static let docked = Rect(x: 0, y: 560, width: 1280, height: 240)

    /// Show, move, hide of one keyboard: 4 observations over 0.6 s.
    static var showMoveHide: [KeyboardObservation] {
        [
            KeyboardObservation(
                time: 0, keyboard: keyboard, frame: docked, isDocked: true, dockedEdge: .bottom, output: screen,
                layout: InputLayout(name: "English (US)", code: "us")),
            KeyboardObservation(
                time: 0.2, keyboard: keyboard, frame: Rect(x: 0, y: 500, width: 1280, height: 240), isDocked: false,
                output: screen),
            KeyboardObservation(time: 0.4, keyboard: keyboard, frame: nil, output: screen),
        ]
    }

    /// Writes observations (or raw lines) to a new temporary file; returns its path.
    static func write(_ observations: [KeyboardObservation], extraLines: [String] = []) -> String {
        let lines = observations.map { ObservationCodec.encode($0, relativeTo: 0) } + extraLines
        return write(text: lines.joined(separator: "\n") + "\n")
    }

    static func write(text: String) -> String {
        write(data: Data(text.utf8))
    }

    static func write(data: Data) -> String {
        let path = NSTemporaryDirectory() + "kbwatch-test-\(UUID().uuidString).jsonl"
        _ = FileManager.default.createFile(atPath: path, contents: data)
        return path
    }

    /// A long recording: the keyboard moves every 50 ms for `seconds`.
    static func moving(seconds: Double) -> [KeyboardObservation] {
        stride(from: 0.0, to: seconds, by: 0.05).enumerated().map { index, time in
            KeyboardObservation(
                time: time, keyboard: keyboard, frame: Rect(x: index % 2 * 10, y: 560, width: 1270, height: 240),
                output: screen)
        }
    }
}
