import CThreadSlice
import Foundation

/// The run-loop thread of a process that uses KeyboardAdapter (`kbd-loop`), found by its name,
/// and the time slice the kernel gives it.
public struct LoopThread: Sendable {
    /// The thread's id (a pid for the scheduler calls).
    public let tid: Int32

    /// The thread named `kbd-loop` in process `pid`; nil when there is none.
    public static func of(pid: Int32) -> LoopThread? {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks.sorted() {
            let name = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)
            if name?.trimmingCharacters(in: .whitespacesAndNewlines) == "kbd-loop", let tid = Int32(task) {
                return LoopThread(tid: tid)
            }
        }
        return nil
    }

    /// The slice the kernel reports for the thread, in nanoseconds; nil when it cannot say.
    public var slice: Int64? {
        let value = ka_thread_slice(tid)
        return value < 0 ? nil : value
    }

    /// Sets the thread's slice to `nanoseconds` from outside (0: the kernel's default, what the
    /// thread has without its own request). Returns 0 or an errno value.
    @discardableResult
    public func setSlice(_ nanoseconds: UInt64) -> Int32 { ka_thread_set_slice(tid, nanoseconds) }

    /// Whether this kernel keeps a slice a thread asks for (the EEVDF scheduler of Linux 6.12 and
    /// newer): tried on a short-lived thread.
    public static var kernelHonoursSlices: Bool { ka_kernel_keeps_slices() != 0 }
}
