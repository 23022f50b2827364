import Foundation
import Glibc
import KeyboardAdapterCore
import TestSupport

/// Wall time of a short-lived program, from `posix_spawn` to `waitpid`, output discarded.
enum StateTiming {
    /// Runs `path` with `arguments` `runs` times in the environment `environment`; the durations
    /// and the exit statuses seen.
    static func measure(_ path: String, _ arguments: [String], environment: [String: String], runs: Int) throws
        -> (times: Latencies, statuses: Set<Int32>)
    {
        var times = Latencies()
        var statuses = Set<Int32>()
        for _ in 0..<runs {
            let (status, seconds) = try run(path, arguments, environment: environment)
            times.append(seconds)
            statuses.insert(status)
        }
        return (times, statuses)
    }

    /// One run: exit status and wall-clock seconds.
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
        guard spawned == 0 else { throw TestFailure("posix_spawn \(path): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let seconds = MonotonicClock.now() - start
        return ((status >> 8) & 0xff, seconds)
    }
}
