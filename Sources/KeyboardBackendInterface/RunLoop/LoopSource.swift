/// Something a ``KeyboardRunLoop`` waits on: a descriptor with the poll events it wants now, a
/// deadline of its own, or both. The convention of Linux event loops (libwayland's display fd,
/// sd-bus's `sd_bus_get_events`/`sd_bus_get_timeout`, an Xlib connection) fits it directly.
///
/// Every method is called on the loop's thread, in this order on each turn: ``prepareToWait()``
/// for every source, one `poll()`, ``handle(events:)`` for every source (with 0 when its
/// descriptor had nothing), then ``deadlineReached()`` for each source whose ``deadline`` has
/// come, earliest first.
public protocol LoopSource: AnyObject {
    /// Does the work that must come before blocking (drain a library's queue, flush requests) and
    /// says what to wait for: a descriptor (or -1 for none) and its `poll()` events.
    func prepareToWait() -> (descriptor: Int32, events: Int16)
    /// What `poll()` reported for the descriptor (0 when nothing, or when the wait ended for
    /// another reason; a source that prepared a read must then cancel it).
    func handle(events: Int16)
    /// When ``deadlineReached()`` is due, in the loop's clock (``LoopContext/clock``); nil for none.
    var deadline: Double? { get }
    /// The deadline came. The source must move or clear its deadline.
    func deadlineReached()
}

extension LoopSource {
    /// No descriptor by default.
    public func prepareToWait() -> (descriptor: Int32, events: Int16) { (-1, 0) }
    /// Nothing to handle by default.
    public func handle(events: Int16) {}
    /// No deadline by default.
    public var deadline: Double? { nil }
    /// Nothing to do by default.
    public func deadlineReached() {}
}
