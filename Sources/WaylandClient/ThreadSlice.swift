import CThreadSlice
import KeyboardBackendInterface

extension LoopThreadTuning {
    /// A 0.1 ms time slice for the loop's thread (honoured from Linux 6.12 on; see `CThreadSlice`),
    /// so that an event from the compositor is handled as soon as it comes, also on a busy machine.
    static let shortTimeSlice = LoopThreadTuning(name: "short time slice") {
        ka_loop_thread_request_short_slice() == 0 ? "0.1 ms time slice asked for" : "time slice not changed"
    }
}
