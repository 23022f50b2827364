import CXft
import Foundation
import KeyboardAdapter

/// The app: one thread, blocked in poll() on the X connection, the keyboard manager's descriptor
/// and the mailbox of signals. It keeps the window's place on screen and the keyboards' frames,
/// turns them into the bar's bottom inset with the library's geometry helper, and moves the bar:
/// towards a will event's destination at once (over its predicted duration when one is known),
/// then frame by frame with the keyboard's progress.
final class DemoApp {
    private let window: DemoWindow
    private let mailbox: Mailbox
    private let feed: KeyboardFeed
    private let drag: BarDrag
    private var keyboards = KeyboardFrames()
    /// The window's inner rectangle in root coordinates; nil until the server has placed it.
    private var frame: Rect?
    private var bar = BarMotion(inset: 0)
    private var drawnInset: Int?
    private var needsRender = true
    private var running = true
    private var exitStatus: Int32 = 0
    private var lastReported: (inset: Int, top: Int)?

    /// Opens the window and starts following keyboards.
    init(backend: String?, position: (x: Int, y: Int)?) throws {
        mailbox = try Mailbox()
        window = try DemoWindow(title: "KeyboardAdapter demo", width: 800, height: 600, position: position)
        feed = KeyboardFeed(backend: backend)
        if let problem = feed.problem { say("keyboards are not followed: \(problem)") }
        drag = BarDrag(manager: feed.manager, mailbox: mailbox)
    }

    /// The mailbox, for the signal handlers.
    var messages: Mailbox { mailbox }

    /// Runs until the window is closed, a termination signal arrives or the X connection breaks;
    /// returns the exit status.
    func run() -> Int32 {
        window.show()
        say("window 0x\(String(window.window, radix: 16))")
        var fds = [
            pollfd(fd: window.fileDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: mailbox.readFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: feed.descriptor, events: Int16(POLLIN), revents: 0),
        ]
        while running {
            handleXEvents()
            handleMessages()
            guard running else { break }
            let now = monotonicNow()
            let inset = drag.inset(forBar: bar.inset(at: now), at: now)
            if needsRender || inset != drawnInset { render(inset: inset) }
            if !bar.isMoving(at: now) && !drag.isMoving(at: now) { reportSettled() }
            // Round trips, and flushing (which reads while it writes), pull events into Xlib's
            // queue where poll() never sees them: the last Xlib call before blocking is an
            // XPending (it flushes too) that found nothing.
            let pending = XPending(window.display)
            if XConnectionBroken.flag { return lostServer() }
            if pending > 0 { continue }
            // Idle: sleep until something happens. Moving: wake for the next frame (60 Hz).
            let timeout: Int32 = bar.isMoving(at: now) || drag.isMoving(at: now) ? 16 : -1
            for i in fds.indices { fds[i].revents = 0 }
            if poll(&fds, nfds_t(fds.count), timeout) < 0 && errno != EINTR {
                say("poll failed: \(String(cString: strerror(errno)))")
                exitStatus = 1
                break
            }
            if fds[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 && fds[0].revents & Int16(POLLIN) == 0 {
                return lostServer()
            }
        }
        shutDown()
        return exitStatus
    }

    // MARK: - X events

    private func handleXEvents() {
        while running && !XConnectionBroken.flag && XPending(window.display) > 0 {
            var event = XEvent()
            XNextEvent(window.display, &event)
            guard event.xany.window == window.window else { continue }
            switch event.type {
            case Expose where event.xexpose.count == 0:
                needsRender = true
            case ConfigureNotify:
                let configure = event.xconfigure
                if window.resize(width: Int(configure.width), height: Int(configure.height)) { needsRender = true }
                // A window manager's synthetic notice carries root coordinates (ICCCM 4.1.5); a
                // real one is relative to the parent (the WM's frame), so ask the server then.
                if configure.send_event != 0 {
                    place(x: Int(configure.x), y: Int(configure.y))
                } else {
                    placeFromServer()
                }
            case MapNotify, ReparentNotify:
                placeFromServer()
            case ButtonPress where event.xbutton.button == UInt32(Button1),
                ButtonRelease where event.xbutton.button == UInt32(Button1):
                pointer(event.type, x: event.xbutton.x, y: event.xbutton.y, time: event.xbutton.time)
            case MotionNotify:
                pointer(event.type, x: event.xmotion.x, y: event.xmotion.y, time: event.xmotion.time)
            case ClientMessage:
                let message = event.xclient
                if message.message_type == window.wmProtocols, message.format == 32,
                    Atom(UInt(bitPattern: message.data.l.0)) == window.wmDeleteWindow
                {
                    say("closed by the window manager")
                    running = false
                }
            default:
                break
            }
        }
    }

    /// A press, a drag or a release of the first button in the window: the dismissal gesture.
    private func pointer(_ type: Int32, x: Int32, y: Int32, time: Time) {
        let now = monotonicNow()
        drag.pointer(type, x: x, y: y, time: time, barInset: bar.inset(at: now), now: now)
        needsRender = true
    }

    private func placeFromServer() {
        if let origin = window.positionOnScreen() { place(x: origin.x, y: origin.y) }
    }

    /// The window moved or changed size: the keyboards cover another part of it, so the inset is
    /// recomputed, and the bar goes there at once (only keyboard animations are followed).
    private func place(x: Int, y: Int) {
        let new = Rect(x: x, y: y, width: window.width, height: window.height)
        guard new != frame else { return }
        frame = new
        needsRender = true
        let now = monotonicNow()
        drag.layoutChanged(dismissalLayout(), barInset: bar.inset(at: now), now: now)
        bar.jump(to: targetInset())
    }

    // MARK: - Keyboard updates and signals

    private func handleMessages() {
        let now = monotonicNow()
        for message in mailbox.take() + feed.take() {
            switch message {
            case .keyboard(let update):
                keyboards.apply(update)
                drag.keyboardEvent(update.event)
                drag.layoutChanged(dismissalLayout(), barInset: bar.inset(at: now), now: now)
                say(
                    "\(update.event.rawValue) \(update.keyboard.name) \(update.endFrame)"
                        + " duration \(String(format: "%.3f", update.animationDuration))"
                        + (update.timing == .predicted ? " predicted" : ""))
                let target = targetInset()
                if target != bar.target {
                    // A will event names where the keyboard is going and, once a slide was
                    // measured, over how long: the bar starts at once. A did event finds the
                    // keyboard there already.
                    if update.event.isWill {
                        bar.move(to: target, at: now, duration: update.animationDuration, curve: update.animationCurve)
                    } else {
                        bar.jump(to: target)
                    }
                }
                needsRender = true
            case .progress(let progress):
                // Frame by frame, in lock-step with the keyboard.
                keyboards.apply(progress)
                drag.layoutChanged(dismissalLayout(), barInset: bar.inset(at: now), now: now)
                bar.jump(to: targetInset())
                needsRender = true
            case .backendStopped(let failure):
                keyboards.removeAll()
                drag.layoutChanged(dismissalLayout(), barInset: bar.inset(at: now), now: now)
                bar.jump(to: targetInset())
                say("keyboard backend stopped" + (failure.map { ": \($0)" } ?? ""))
                needsRender = true
            case .hideAnswered(let result):
                drag.hideAnswered(result, barInset: bar.inset(at: now), now: now)
                needsRender = true
            case .quit(let signal):
                say("signal \(signal): quitting")
                running = false
            }
        }
    }

    private func targetInset() -> Int {
        guard let frame else { return 0 }
        return keyboards.bottomInset(forWindow: frame)
    }

    /// The bar at rest on the keyboard, its text field, and the keyboard over the window's
    /// bottom, in the window's coordinates; nil until the window is placed.
    private func dismissalLayout() -> KeyboardDismissalLayout? {
        guard let frame else { return nil }
        let barTop = max(0, window.height - BarMetrics.height - targetInset())
        let margin = BarMetrics.fieldMargin
        return KeyboardDismissalLayout(
            bar: Rect(x: 0, y: barTop, width: window.width, height: BarMetrics.height),
            focusedField: Rect(
                x: margin, y: barTop + BarMetrics.fieldInset, width: window.width - 2 * margin,
                height: BarMetrics.height - 2 * BarMetrics.fieldInset),
            globalKeyboard: keyboards.coveringBottom(ofWindow: frame), window: frame)
    }

    // MARK: - Drawing

    private func render(inset: Int) {
        let barTop = max(0, window.height - BarMetrics.height - inset)
        window.render(
            Scene(title: "KeyboardAdapter demo", body: Self.body, status: status(inset: inset), barTop: barTop))
        drawnInset = inset
        needsRender = false
    }

    private static let body = [
        "This window keeps its input bar above the on-screen keyboard.",
        "Show a keyboard over the bottom of the window (matchbox-keyboard, xvkbd, onboard):",
        "the bar moves up to sit on the keyboard's top edge, and follows it when it moves or hides.",
        "Moving or resizing the window recomputes the bottom inset.",
        "Drag this text down across the keyboard to dismiss it, or tap here: the bar follows.",
    ]

    private func status(inset: Int) -> [String] {
        var lines: [String] = []
        if let problem = feed.problem {
            lines.append("Keyboards are not followed: \(problem)")
        } else {
            let visible = keyboards.visible
            lines.append(
                visible.isEmpty
                    ? "Keyboard: none visible"
                    : "Keyboard: " + visible.map { "\($0.name) at \($0.frame)" }.joined(separator: "; "))
        }
        lines.append("Window: " + (frame.map { "\($0)" } ?? "not placed yet") + "   Bottom inset: \(inset) px")
        if let name = feed.backendName { lines.append("Backend: \(name)") }
        return lines
    }

    /// One line per resting place of the bar, so a script or a test knows when to look.
    private func reportSettled() {
        let top = max(0, window.height - BarMetrics.height - bar.target)
        guard frame != nil, lastReported.map({ $0 != (bar.target, top) }) ?? true else { return }
        lastReported = (bar.target, top)
        say("bar inset \(bar.target) top \(top)")
    }

    // MARK: - Ending

    private func lostServer() -> Int32 {
        say("lost the connection to the X server")
        feed.stop()
        return 1
    }

    private func shutDown() {
        feed.stop()
        window.close()
    }
}

/// Writes one line to standard output in one write(2), prefixed with the program's name. Control
/// characters (a keyboard's name comes from another program) become `?`, so a line stays a line.
func say(_ line: String) {
    let clean = String(line.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : Character($0) })
    let bytes = Array("kbdemo: \(clean)\n".utf8)
    bytes.withUnsafeBytes { _ = write(STDOUT_FILENO, $0.baseAddress, $0.count) }
}

/// Seconds on the monotonic clock (`CLOCK_MONOTONIC`, which Dispatch reads on Linux): the time base
/// of the bar's motion and of the dismissal gesture, and the one the package stamps observations with.
private func monotonicNow() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
