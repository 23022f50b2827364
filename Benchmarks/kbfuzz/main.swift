import Foundation

// kbfuzz: mutates recordings and rules files and runs them through kbwatch's own code in this
// process (the recording codec, the tracker, the writers, the rules parser), reporting crashes,
// hangs and invalid output. Every input derives from the seed and its index alone.

struct Options {
    var seed = UInt64(Date().timeIntervalSince1970 * 1000)
    var count = 10_000
    var minutes: Double?
    var input: Int?
    var verbose = false

    static let usage = """
        usage: kbfuzz [--seed N] [--count N] [--minutes M] [--input I] [--verbose]
          --seed N     seed of the run (default: the time); printed, so a run can be repeated
          --count N    inputs to run (default 10000)
          --minutes M  stop after M minutes, even before --count inputs
          --input I    run input I of the seed only (to reproduce a finding)
          --verbose    print each input's seed and index before running it
        """

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var rest = arguments[...]
        func value(_ name: String) -> String {
            guard let value = rest.popFirst() else { fail("\(name) needs a value") }
            return value
        }
        func number<T: LosslessStringConvertible & Comparable>(_ name: String, _ type: T.Type, above floor: T) -> T {
            guard let parsed = T(value(name)), parsed >= floor else { fail("\(name) needs a number") }
            return parsed
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--seed": options.seed = number(argument, UInt64.self, above: 0)
            case "--count": options.count = number(argument, Int.self, above: 0)
            case "--minutes": options.minutes = number(argument, Double.self, above: 0)
            case "--input": options.input = number(argument, Int.self, above: 0)
            case "--verbose": options.verbose = true
            case "-h", "--help":
                print(usage)
                exit(0)
            default: fail("unknown argument '\(argument)'")
            }
        }
        return options
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("kbfuzz: \(message)\n\(usage)\n".utf8))
        exit(2)
    }
}

/// Prints one line unbuffered, so that what was printed survives a crash.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
let pipeline = Pipeline()
let hangLimit = 5.0
Watchdog.start(hangLimit: hangLimit)
say("kbfuzz: seed \(options.seed)")

let start = Date()
let deadline = options.minutes.map { start.addingTimeInterval($0 * 60) }
var counts = (inputs: 0, recordings: 0, rules: 0, rejected: 0, lines: 0, invalid: 0)
for index in options.input.map({ $0...$0 }) ?? 0...max(0, options.count - 1) {
    if options.input == nil, options.count == 0 { break }
    if let deadline, Date() > deadline { break }
    var random = SeededRandom(seed: options.seed, index: index)
    // One input in five is a rules file; one in twenty is left unmutated (the valid path).
    let isRules = random.chance(0.2)
    let base = isRules ? Inputs.rulesFile(&random) : Inputs.recording(&random)
    let bytes = random.chance(0.05) ? base : Mutations.mutate(base, &random)
    let kind = isRules ? "rules file" : "recording"
    if options.verbose { say("kbfuzz: --seed \(options.seed) --input \(index) (\(kind), \(bytes.count) bytes)") }
    Watchdog.begin(seed: options.seed, input: index, kind: kind)
    let outcome = isRules ? pipeline.rulesFile(bytes) : pipeline.recording(bytes)
    Watchdog.end()
    counts.inputs += 1
    if isRules { counts.rules += 1 } else { counts.recordings += 1 }
    if outcome.rejected { counts.rejected += 1 }
    counts.lines += outcome.lines
    for problem in outcome.invalid {
        counts.invalid += 1
        say("kbfuzz: invalid output on --seed \(options.seed) --input \(index) (\(kind)): \(problem)")
    }
}

let seconds = Date().timeIntervalSince(start)
say(
    "kbfuzz: \(counts.inputs) inputs (\(counts.recordings) recordings, \(counts.rules) rules files, "
        + "\(counts.rejected) rejected with a reason) in \(String(format: "%.1f", seconds)) s, "
        + "\(Int(Double(counts.inputs) / max(seconds, 0.001))) inputs/s; \(counts.lines) output lines checked; "
        + "0 crashes, 0 hangs over \(Int(hangLimit)) s, \(counts.invalid) invalid output lines")
exit(counts.invalid == 0 ? 0 : 1)
