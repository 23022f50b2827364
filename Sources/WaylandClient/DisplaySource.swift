import CWayland
import Glibc
import KeyboardBackendInterface
import LoopThreadSlice

/// A compositor connection as a run-loop source: the loop polls its descriptor, and every
/// handler runs on the loop's thread as events are dispatched. When the connection breaks,
/// `failed` gets the reason once and the source leaves the loop.
package final class DisplaySource: LoopSource {
    // Not Sendable: created on the loop's thread and used there only; its owner (a backend's
    // loop-bound connection) closes it from `stop`, on that same thread.
    package let display: WaylandDisplay
    private let context: LoopContext
    private let failed: (String) -> Void
    private var isOpen = true
    /// A read was readied and must be completed or cancelled.
    private var reading = false

    /// Adds `display` to the loop; `failed` is called once, on the loop's thread, when it breaks.
    /// Called on the loop's thread, whose loop it asks for a short time slice (see `CThreadSlice`):
    /// an event from the compositor is then handled as soon as it comes, also on a busy machine.
    /// Where the kernel cannot grant one, nothing changes.
    package init(display: WaylandDisplay, context: LoopContext, failed: @escaping (String) -> Void) {
        self.display = display
        self.context = context
        self.failed = failed
        context.request(.shortTimeSlice)
        context.add(self)
    }

    /// The most reads (of at most 4 KiB each) in one turn of the loop: enough to keep up with a
    /// compositor's burst, few enough that the loop's other sources get their turn.
    static let readsPerTurn = 16

    /// What the loop's thread asks the scheduler for, and whether this kernel keeps it, for
    /// `--doctor`.
    package static var threadDescription: String { LoopThreadTuning.sliceDescription }

    package func prepareToWait() -> (descriptor: Int32, events: Int16) {
        guard isOpen else { return (-1, 0) }
        switch display.prepareRead() {
        case .success(let events):
            reading = true
            return (display.fileDescriptor, events)
        case .failure(let error):
            fail(error.description)
            return (-1, 0)
        }
    }

    package func handle(events: Int16) {
        guard isOpen, reading else { return }
        reading = false
        do throws(WaylandError) {
            try display.finishRead(events: events)
            var reads = 1
            while reads < Self.readsPerTurn, events & Int16(POLLIN) != 0, try display.readWaiting() { reads += 1 }
        } catch {
            fail(error.description)
        }
    }

    /// Leaves the loop; the display stays connected for its owner to release. Idempotent.
    package func close() {
        guard isOpen else { return }
        if reading { wl_display_cancel_read(display.display) }
        reading = false
        isOpen = false
        context.remove(self)
    }

    private func fail(_ reason: String) {
        close()
        failed(reason)
    }
}
