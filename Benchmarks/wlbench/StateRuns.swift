import Foundation
import Glibc
import KeyboardAdapterCore
import TestSupport

/// Wall time of a short-lived program, from `posix_spawn` to `waitpid`, output discarded: for
/// `kbwatch --state` and its floor, `wlbare --once`.
enum StateRuns {
    /// One run of `path` with `arguments` in `environment`: exit status and wall-clock seconds.
    static func run(_ path: String, _ arguments: [String], environment: [String: String]) throws -> (Int32, Double) {
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
        guard spawned == 0 else { throw BenchError("posix_spawn \(path): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return ((status >> 8) & 0xff, MonotonicClock.now() - start)
    }

    /// `runs` runs of each, alternating: kbwatch's times, the floor's, and kbwatch's exit statuses.
    static func measure(kbwatch: String, floor: String, environment: [String: String], runs: Int) throws
        -> (kbwatch: Latencies, floor: Latencies, statuses: Set<Int32>)
    {
        var times = Latencies()
        var floorTimes = Latencies()
        var statuses = Set<Int32>()
        for _ in 0..<runs {
            let run = try self.run(kbwatch, ["--state", "--backend", "wayland"], environment: environment)
            statuses.insert(run.0)
            times.append(run.1)
            floorTimes.append(try self.run(floor, ["--once"], environment: environment).1)
        }
        return (times, floorTimes, statuses)
    }
}
