/// A value that belongs to one run loop's thread: every read and write checks that it is made
/// there, and stops the process with a message when it is not, rather than race. So state that
/// only its loop may touch needs no lock, and the compiler's `Sendable` check is kept by a check
/// at run time instead of a comment.
///
/// Before the loop's thread starts and after it ended no loop code runs on it, and whoever owns
/// the value then (its creator; the one stop that took it out of a lifecycle) may touch it from
/// its own thread.
public final class LoopBound<Value>: @unchecked Sendable {
    // @unchecked: `stored` is only reached through `value`, which checks the thread.
    private var stored: Value
    /// The loop the value belongs to.
    public let loop: KeyboardRunLoop

    /// Binds `value` to `loop`.
    public init(_ value: Value, loop: KeyboardRunLoop) {
        stored = value
        self.loop = loop
    }

    /// Binds `value` to the loop of `context` (which is on that loop's thread).
    public convenience init?(_ value: Value, context: LoopContext) {
        guard let loop = context.runLoop else { return nil }
        self.init(value, loop: loop)
    }

    /// The value; on the loop's thread only (or while the loop does not run).
    public var value: Value {
        // Read in place: a look at one field copies neither the value nor what it holds.
        _read {
            check()
            yield stored
        }
        _modify {
            check()
            yield &stored
        }
    }

    /// Whether the calling thread may touch the value now.
    public var isAccessible: Bool { loop.isCurrent || !loop.isRunning }

    private func check() {
        precondition(isAccessible, "a loop-bound value was touched off its run loop's thread")
    }
}

/// A weak reference, for an object of a loop that closures on other threads must not keep
/// alive: bound to that loop (`LoopBound(WeakReference(object), loop: loop)`), it is read back
/// there only.
public struct WeakReference<Object: AnyObject> {
    /// The object, while someone else keeps it.
    public weak var value: Object?

    /// A weak reference to `value`.
    public init(_ value: Object) { self.value = value }
}
