// replaybench: how replay time grows with the number of keyboards visible at once. A recording
// shows N keyboards one after another (all visible together), then hides them; it is played as
// fast as possible through kbwatch (`--replay FILE --speed max --json`, stdout to /dev/null) and
// through a KeyboardManager in this process. The cost per keyboard should stay flat as N grows.

import Foundation
import KeyboardAdapterCore
import KeyboardBackendInterface
import KeyboardReplay
import Synchronization
import TestSupport

/// The recording: N shows 1 ms apart, then N hides.
func recording(keyboards count: Int) -> String {
    let output = Output(name: "screen", frame: Rect(x: 0, y: 0, width: 1280, height: 800))
    var lines: [String] = []
    for index in 0..<(2 * count) {
        let keyboard = KeyboardIdentity(id: "bench:\(index % count)", name: "osk")
        let frame = index < count ? Rect(x: index % 1000, y: 560, width: 100, height: 240) : nil
        lines.append(
            ObservationCodec.encode(
                KeyboardObservation(time: Double(index) * 0.001, keyboard: keyboard, frame: frame, output: output),
                relativeTo: 0))
    }
    return lines.joined(separator: "\n") + "\n"
}

/// Seconds to play `text` through a manager until its end, counting the events.
func playInProcess(_ text: String) throws -> (seconds: Double, events: Int) {
    let manager = KeyboardManager(backend: ReplayBackend(source: .text(text), speed: .asFastAsPossible))
    let events = Mutex(0)
    let ended = Mutex(false)
    let tokens = [
        manager.onEvent(delivery: .immediate) { _ in events.withLock { $0 += 1 } },
        manager.onStop(delivery: .immediate) { _ in ended.withLock { $0 = true } },
    ]
    let start = MonotonicClock.now()
    try manager.start()
    while !ended.withLock({ $0 }) { usleep(200) }
    let seconds = MonotonicClock.now() - start
    withExtendedLifetime(tokens) {}
    return (seconds, events.withLock { $0 })
}

/// Seconds kbwatch takes to play the file at `path` as fast as possible.
func playThroughKbwatch(_ path: String) throws -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Kbwatch.path)
    process.arguments = ["--replay", path, "--speed", "max", "--json"]
    process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
    let start = MonotonicClock.now()
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw TestFailure("kbwatch exited \(process.terminationStatus)") }
    return MonotonicClock.now() - start
}

func main() throws {
    print("replaybench: N keyboards shown one after another (all visible at once), then hidden")
    print("     N   kbwatch (s)   per keyboard (µs)   manager (s)   per keyboard (µs)   events")
    for count in [512, 1024, 2048, ReplayBackend.maximumVisibleKeyboards] {
        let text = recording(keyboards: count)
        let path = NSTemporaryDirectory() + "replaybench-\(count).jsonl"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let kbwatch = try playThroughKbwatch(path)
        let inProcess = try playInProcess(text)
        func column(_ text: String, _ width: Int) -> String {
            String(repeating: " ", count: max(0, width - text.count)) + text
        }
        print(
            column(String(count), 6) + column(String(format: "%.3f", kbwatch), 14)
                + column(String(format: "%.1f", kbwatch / Double(count) * 1e6), 20)
                + column(String(format: "%.3f", inProcess.seconds), 14)
                + column(String(format: "%.1f", inProcess.seconds / Double(count) * 1e6), 20)
                + column(String(inProcess.events), 9))
    }
}

do {
    try main()
} catch {
    FileHandle.standardError.write(Data("replaybench: \(error)\n".utf8))
    exit(1)
}
