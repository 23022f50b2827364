import Foundation

/// Instructions per keyboard move of `kbwatch --json` and of x11bare, counted by callgrind (exact,
/// and the same from run to run, where CPU time spreads): both run under valgrind watching the
/// same moves, each profile emptied after the warm-up moves and written out after the counted ones.
/// kbwatchbench and x11bench both print it.
public struct InstructionsPerMove: Sendable {
    /// kbwatch's instructions over the counted moves, all threads; nil when not counted.
    public var kbwatch: Int?
    /// x11bare's instructions over the same moves; nil when not counted.
    public var floor: Int?
    /// The moves counted.
    public var moves = 0
    /// Why nothing was counted (valgrind missing, a watcher that did not start).
    public var problem: String?

    /// Starts `kbwatch --backend x11 --json` and x11bare (built beside kbwatch) under callgrind on
    /// `display`, both watching `window`, and counts their instructions over `count` moves of it.
    public static func measure(display: String, window: UInt, environment: [String: String?], count: Int) throws
        -> InstructionsPerMove
    {
        var result = InstructionsPerMove(moves: count)
        for tool in ["valgrind", "callgrind_control", "objcopy"] where Programs.find(tool) == nil {
            result.problem = "\(tool) is not installed"
            return result
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("instructions-\(getpid())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        // valgrind cannot read the toolchain's DWARF 5: a copy without it, with its symbols.
        let kbwatchCopy = work + "/kbwatch"
        guard run("objcopy", ["--strip-debug", Kbwatch.path, kbwatchCopy]) else {
            result.problem = "objcopy could not copy kbwatch"
            return result
        }
        let bare = URL(fileURLWithPath: Kbwatch.path).deletingLastPathComponent().appendingPathComponent("x11bare").path
        let kbwatch = try WatchedProcess(
            "valgrind",
            [
                "--tool=callgrind", "--callgrind-out-file=\(work)/kbwatch.out", kbwatchCopy, "--backend", "x11",
                "--json",
            ],
            environment: environment)
        defer { kbwatch.stop() }
        let floor = try WatchedProcess(
            "valgrind", ["--tool=callgrind", "--callgrind-out-file=\(work)/bare.out", bare, String(window), "50"],
            environment: environment)
        defer { floor.stop() }
        guard kbwatch.lines.first(from: 0, timeout: 60, where: { $0.contains("\"didShow\"") }) != nil,
            floor.lines.first(from: 0, timeout: 60, where: { $0 == "ready" }) != nil
        else {
            result.problem = "kbwatch or x11bare did not start under valgrind: \(kbwatch.errors) \(floor.errors)"
            return result
        }
        let driver = try XTestClient.connect(display)
        driver.sync()
        // Slower under valgrind: each move is given 0.1 s, twice the settle interval.
        for step in 0..<10 {
            driver.configure(window, x: step % 2 == 0 ? 100 : 320, y: 600)
            Thread.sleep(forTimeInterval: 0.1)
        }
        Thread.sleep(forTimeInterval: 0.5)
        _ = run("callgrind_control", ["-z", String(kbwatch.pid)])
        _ = run("callgrind_control", ["-z", String(floor.pid)])
        let kbwatchLines = kbwatch.lines.count
        let floorLines = floor.lines.count
        for step in 0..<count {
            driver.configure(window, x: step % 2 == 0 ? 100 : 320, y: 600)
            Thread.sleep(forTimeInterval: 0.1)
        }
        Thread.sleep(forTimeInterval: 0.6)
        _ = run("callgrind_control", ["-d", String(kbwatch.pid)])
        _ = run("callgrind_control", ["-d", String(floor.pid)])
        let wrote = (kbwatch.lines.count - kbwatchLines, floor.lines.count - floorLines)
        guard wrote.0 == 2 * count, wrote.1 == 2 * count else {
            result.problem = "lines during the moves: kbwatch \(wrote.0), x11bare \(wrote.1), not \(2 * count) each"
            return result
        }
        result.kbwatch = instructions(in: work, prefix: "kbwatch.out.")
        result.floor = instructions(in: work, prefix: "bare.out.")
        return result
    }

    /// The instruction count of the last dump whose name starts with `prefix`.
    private static func instructions(in directory: String, prefix: String) -> Int? {
        let dumps = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter {
            $0.hasPrefix(prefix)
        }
        guard
            let last = dumps.max(by: { (Int($0.dropFirst(prefix.count)) ?? 0) < (Int($1.dropFirst(prefix.count)) ?? 0) }
            ),
            let text = try? String(contentsOfFile: directory + "/" + last, encoding: .utf8)
        else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("summary: ") {
            return Int(line.dropFirst("summary: ".count).split(separator: " ").first ?? "")
        }
        return nil
    }

    /// Runs `tool` to its end; true when it succeeded.
    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        (try? Programs.run(tool, arguments))?.status == 0
    }

    /// The rows: both counts per move, the ratio and the target, labels padded to `width`.
    public func rows(width: Int = 46) -> [String] {
        func column(_ text: String) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
        guard let kbwatch, let floor, moves > 0 else {
            return ["instructions per keyboard move (callgrind): not counted: \(problem ?? "no profile")"]
        }
        let perMove = Double(kbwatch) / Double(moves)
        let floorPerMove = Double(floor) / Double(moves)
        return [
            "instructions per keyboard move, \(moves) moves under callgrind, both watching at once",
            column("  kbwatch --json (all threads)") + String(format: "%8.0f", perMove),
            column("  x11bare (C, Xlib: same events, same lines)") + String(format: "%8.0f", floorPerMove),
            column("  ratio, kbwatch / x11bare") + String(format: "%8.2fx", perMove / floorPerMove)
                + "   (target <= 1.50x)",
        ]
    }
}
