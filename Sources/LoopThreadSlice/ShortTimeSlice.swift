import CThreadSlice
import KeyboardBackendInterface

extension LoopThreadTuning {
    /// A 0.1 ms time slice for the loop's thread (honoured from Linux 6.12 on; see `CThreadSlice`),
    /// so that what the display server or the bus sends is handled as soon as it comes, also on a
    /// busy machine. Asked for by every connection an event arrives on as it joins the loop.
    package static let shortTimeSlice = LoopThreadTuning(name: "short time slice") {
        ka_loop_thread_request_short_slice() == 0 ? "0.1 ms time slice asked for" : "time slice not changed"
    }

    /// What the loop thread's slice is now, as `--doctor` says it.
    package static var sliceDescription: String { String(cString: ka_loop_slice_description()) }
}
