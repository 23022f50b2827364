import Foundation
import Glibc

/// What a process (or some of its threads) has used so far, from /proc: CPU ticks (utime +
/// stime), voluntary and involuntary context switches, summed over its threads
/// (`/proc/PID/task/*`), and its resident memory. Take two samples and subtract them.
public struct ProcessUsage: Sendable {
    /// utime + stime in clock ticks (`sysconf(_SC_CLK_TCK)` per second).
    public var ticks: Int
    /// Voluntary context switches (the thread blocked).
    public var voluntarySwitches: Int
    /// Involuntary context switches (the thread was preempted).
    public var involuntarySwitches: Int
    /// VmRSS in KiB (of the whole process, also when threads are chosen).
    public var residentKiB: Int
    /// How many threads were summed.
    public var threads: Int
    /// utime alone, in clock ticks.
    public var userTicks = 0
    /// stime alone, in clock ticks.
    public var systemTicks = 0
    /// Time on a CPU (user and system) in nanoseconds, from `/proc/PID/task/*/schedstat`: the
    /// scheduler's own account, exact where `ticks` counts in steps of 10 ms.
    public var cpuNanoseconds = 0

    /// Nothing used, for a process or thread that is gone.
    public static let zero = ProcessUsage(
        ticks: 0, voluntarySwitches: 0, involuntarySwitches: 0, residentKiB: 0, threads: 0)

    /// A sample of each field.
    public init(
        ticks: Int, voluntarySwitches: Int, involuntarySwitches: Int, residentKiB: Int, threads: Int,
        userTicks: Int = 0, systemTicks: Int = 0, cpuNanoseconds: Int = 0
    ) {
        self.ticks = ticks
        self.voluntarySwitches = voluntarySwitches
        self.involuntarySwitches = involuntarySwitches
        self.residentKiB = residentKiB
        self.threads = threads
        self.userTicks = userTicks
        self.systemTicks = systemTicks
        self.cpuNanoseconds = cpuNanoseconds
    }

    /// Both kinds of context switches.
    public var switches: Int { voluntarySwitches + involuntarySwitches }

    /// Clock ticks per second.
    public static let ticksPerSecond = Int(sysconf(Int32(_SC_CLK_TCK)))

    /// The usage of process `pid` summed over its threads; with `thread`, only over threads whose
    /// name (`comm`, at most 15 bytes) is a prefix of `thread`. Nil when the process is gone.
    public static func sample(pid: Int32, thread: String? = nil) -> ProcessUsage? {
        guard let status = read("/proc/\(pid)/status") else { return nil }
        var usage = ProcessUsage(
            ticks: 0, voluntarySwitches: 0, involuntarySwitches: 0, residentKiB: field(status, "VmRSS:") ?? 0,
            threads: 0)
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks {
            let directory = "/proc/\(pid)/task/\(task)"
            if let thread {
                let name = (read(directory + "/comm") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                guard !name.isEmpty, thread.hasPrefix(name) else { continue }
            }
            // The fields after the parenthesised name start at field 3; utime and stime are 14 and 15.
            guard let stat = read(directory + "/stat"), let taskStatus = read(directory + "/status") else { continue }
            let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
            guard fields.count > 12 else { continue }
            usage.userTicks += Int(fields[11]) ?? 0
            usage.systemTicks += Int(fields[12]) ?? 0
            usage.ticks += (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
            if let schedstat = read(directory + "/schedstat"), let onCPU = schedstat.split(separator: " ").first {
                usage.cpuNanoseconds += Int(onCPU) ?? 0
            }
            usage.voluntarySwitches += field(taskStatus, "voluntary_ctxt_switches:") ?? 0
            usage.involuntarySwitches += field(taskStatus, "nonvoluntary_ctxt_switches:") ?? 0
            usage.threads += 1
        }
        return usage
    }

    /// What was used between `earlier` and this sample (resident memory and threads: this sample's).
    public func since(_ earlier: ProcessUsage) -> ProcessUsage {
        ProcessUsage(
            ticks: ticks - earlier.ticks, voluntarySwitches: voluntarySwitches - earlier.voluntarySwitches,
            involuntarySwitches: involuntarySwitches - earlier.involuntarySwitches, residentKiB: residentKiB,
            threads: threads, userTicks: userTicks - earlier.userTicks, systemTicks: systemTicks - earlier.systemTicks,
            cpuNanoseconds: cpuNanoseconds - earlier.cpuNanoseconds)
    }

    /// "T ticks (M ms CPU), V+I context switches (voluntary+involuntary)".
    public var cpuDescription: String {
        "\(ticks) ticks (\(ticks * 1000 / Self.ticksPerSecond) ms CPU), \(switches) context switches "
            + "(\(voluntarySwitches) voluntary + \(involuntarySwitches) involuntary)"
    }

    private static func read(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

    private static func field(_ status: String, _ key: String) -> Int? {
        status.split(separator: "\n").first { $0.hasPrefix(key) }
            .flatMap { $0.dropFirst(key.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first }
            .flatMap { Int($0) }
    }
}

/// Resident memory in MiB, for reports: "12.3 MiB".
public func mebibytesText(kibibytes: Int) -> String { String(format: "%.1f MiB", Double(kibibytes) / 1024) }
