/// Where a manager sends every observation its backend delivers, before it is processed: the
/// replay's `ObservationRecorder` (`KeyboardReplay`) writes them to a file (`kbwatch --record`).
/// Called on the run loop's thread, in order.
public protocol ObservationRecording: Sendable {
    /// Takes one observation.
    func record(_ observation: KeyboardObservation)
}
