// A backend's run (`open(in:sink:app:)` and the connection it returns) is SPI of the interface: a
// backend imports it by name, and an app, which imports KeyboardAdapter alone, cannot call it.
@_spi(BackendRun) import KeyboardBackendInterface

/// A backend from outside the package: one keyboard, shown when the run starts and hidden on the
/// loop's next turn, after which the backend says that it ended. What it delivers is what any
/// backend delivers; the manager builds the events.
final class ScriptedBackend: KeyboardBackend {
    let name = "scripted"
    var capabilities: BackendCapabilities { [.reportsFrames] }

    func availability() -> BackendAvailability { .available(detail: "a scripted keyboard") }

    /// On the loop's thread: the keyboard shown now, hidden on the loop's next turn, then the end.
    /// The run holds nothing to release: the manager closes it.
    func open(in context: LoopContext, sink: any ObservationSink, app: AppIdentity) throws -> any BackendConnection {
        let keyboard = KeyboardIdentity(id: "scripted:1", name: "scripted")
        let shown = Rect(x: 0, y: 560, width: 1280, height: 240)
        sink.deliver(KeyboardObservation(time: context.clock.now(), keyboard: keyboard, frame: shown))
        context.runLoop?.perform {
            sink.deliver(KeyboardObservation(time: MonotonicClock.now(), keyboard: keyboard, frame: nil))
            sink.finish(failure: nil)
        }
        return CallbackConnection()
    }
}
