import Foundation
import Glibc
import KeyboardAdapterCore
import KeyboardBackendInterface

/// Wall time of a short-lived program, from `posix_spawn` to `waitpid`, its output discarded:
/// the benchmarks' `kbwatch --state` runs and their floors.
public enum TimedRun {
    /// One run of `path` with `arguments` in `environment`: its exit status and the seconds it took.
    public static func run(_ path: String, _ arguments: [String], environment: [String: String]) throws
        -> (status: Int32, seconds: Double)
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let start = MonotonicClock.now()
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard spawned == 0 else { throw TestFailure("posix_spawn \(path): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return ((status >> 8) & 0xff, MonotonicClock.now() - start)
    }

    /// `runs` runs of `program` and of its `floor`, alternating: the times of each and the exit
    /// statuses `program` ended with.
    public static func alternating(
        _ program: (path: String, arguments: [String]), floor: (path: String, arguments: [String]),
        environment: [String: String], runs: Int
    ) throws -> (program: Latencies, floor: Latencies, statuses: Set<Int32>) {
        var times = Latencies()
        var floorTimes = Latencies()
        var statuses = Set<Int32>()
        for _ in 0..<runs {
            let run = try run(program.path, program.arguments, environment: environment)
            statuses.insert(run.status)
            times.append(run.seconds)
            floorTimes.append(try self.run(floor.path, floor.arguments, environment: environment).seconds)
        }
        return (times, floorTimes, statuses)
    }
}
