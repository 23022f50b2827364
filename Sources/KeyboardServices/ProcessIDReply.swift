import KeyboardBackendInterface
import SystemdBus

extension KeyboardServiceState {
    /// This state with the pid the bus gave in `reply` to `GetConnectionUnixProcessID`, or nil
    /// when the reply is an error, not one positive `u` a pid can be, or the keyboard no longer
    /// runs (its name lost its owner while the call was on its way).
    func withProcessID(from reply: BusMessage?) -> KeyboardServiceState? {
        guard isRunning, let reply, reply.error == nil, reply.hasSignature("u"), let pid = try? reply.readUInt32(),
            pid > 0, pid <= UInt32(Int32.max)
        else { return nil }
        var state = self
        state.pid = Int32(pid)
        return state
    }
}
