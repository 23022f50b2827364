// kbwatchbench: what the kbwatch process costs while it watches a real keyboard on a private Xvfb.
//
// 1. Resident memory after start-up, with xvkbd shown.
// 2. Idle CPU over 10 s (utime + stime from /proc, and context switches): nothing happens, so a
//    process blocked in poll() should use none.
// 3. 500 moves of the keyboard window, one at a time: the time from the configure request to the
//    willChangeFrame line on kbwatch's stdout (p50, p99), and the memory afterwards.

import Foundation
import KeyboardAdapterCore
import TestSupport

/// Reads kbwatch's stdout line by line from a pipe, stamping each line when it arrives.
final class LineTap: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = Data()
    private var lines: [(time: Double, text: String)] = []

    init(_ handle: FileHandle) {
        handle.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            let now = MonotonicClock.now()
            guard let self, !data.isEmpty else { return }
            self.lock.withLock {
                self.buffer.append(data)
                while let newline = self.buffer.firstIndex(of: 0x0A) {
                    let line = String(decoding: self.buffer[self.buffer.startIndex..<newline], as: UTF8.self)
                    self.buffer.removeSubrange(self.buffer.startIndex...newline)
                    self.lines.append((now, line))
                }
            }
        }
    }

    var count: Int { lock.withLock { lines.count } }
    func line(_ index: Int) -> (time: Double, text: String) { lock.withLock { lines[index] } }
}

/// CPU ticks, voluntary context switches and resident memory of a process, from /proc.
struct ProcessSample {
    var ticks: Int
    var switches: Int
    var residentKiB: Int

    init(pid: Int32) {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
        let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
        ticks = fields.count > 13 ? (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0) : -1
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        func value(_ key: String) -> Int {
            status.split(separator: "\n").first { $0.hasPrefix(key) }
                .flatMap { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first }
                .flatMap { Int($0) } ?? -1
        }
        switches = value("voluntary_ctxt_switches:")
        residentKiB = value("VmRSS:")
    }
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

func main() throws {
    let session = try X11Session()
    defer { session.stop() }
    let keyboard = try session.start("xvkbd", ["-geometry", "640x200+320+600"])
    _ = keyboard
    let client = try XTestClient.connect(session.display)

    let process = Programs.process(
        Kbwatch.path, ["--backend", "x11", "--format", "%e %x"], environment: session.environment)
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    let tap = LineTap(pipe.fileHandleForReading)
    try Programs.start(process)
    defer {
        process.terminate()
        process.waitUntilExit()
    }
    let pid = process.processIdentifier
    try Wait.require("kbwatch to report xvkbd shown", timeout: 20) {
        (0..<tap.count).contains { tap.line($0).text.hasPrefix("didShow") }
    }
    let window = try keyboardWindow(session)

    let started = ProcessSample(pid: pid)
    Thread.sleep(forTimeInterval: 10)
    let idle = ProcessSample(pid: pid)

    var latencies: [Double] = []
    for step in 0..<500 {
        let before = tap.count
        let sent = MonotonicClock.now()
        client.configure(window, x: step % 2 == 0 ? 100 : 320, y: 600)
        client.sync()
        try Wait.require("willChangeFrame for move \(step)", timeout: 5) {
            (before..<tap.count).contains { tap.line($0).text.hasPrefix("willChangeFrame") }
        }
        let line = (before..<tap.count).map(tap.line).first { $0.text.hasPrefix("willChangeFrame") }!
        latencies.append((line.time - sent) * 1000)
        // Let the move settle so that the next one starts a new transition.
        Thread.sleep(forTimeInterval: 0.06)
    }
    let after = ProcessSample(pid: pid)
    let tick = Double(sysconf(Int32(_SC_CLK_TCK)))

    print("kbwatch on a private Xvfb with xvkbd shown (\(ProcessInfo.processInfo.activeProcessorCount) cores)")
    print("resident memory after start-up     \(started.residentKiB) KiB")
    print(
        "idle CPU over 10 s                 \(idle.ticks - started.ticks) ticks (\(String(format: "%.0f", Double(idle.ticks - started.ticks) / tick * 1000)) ms), \(idle.switches - started.switches) context switches"
    )
    print(
        "configure request -> stdout line   p50 \(String(format: "%.2f", percentile(latencies, 0.5))) ms, p99 \(String(format: "%.2f", percentile(latencies, 0.99))) ms (n=\(latencies.count))"
    )
    print("resident memory after 500 moves    \(after.residentKiB) KiB")
}

/// The keyboard's client window, found by its class as the backend finds it.
func keyboardWindow(_ session: X11Session) throws -> UInt {
    let output = try session.run("xdotool", ["search", "--class", "XVkbd"])
    guard let id = output.split(separator: "\n").compactMap({ UInt($0) }).first else {
        throw TestFailure("no xvkbd window found")
    }
    return id
}

do {
    try main()
} catch {
    FileHandle.standardError.write(Data("kbwatchbench: \(error)\n".utf8))
    exit(1)
}
