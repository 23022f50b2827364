import CMalloc
import Glibc
import KbwatchOutput
import KeyboardAdapter
@_spi(BackendRun) import KeyboardBackendInterface

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// kbwatch: watches the on-screen keyboards of this session and prints one line per event.
// Lines are written whole with one write(2) each, so an interrupt never leaves half a line.

/// Writes one line to a file descriptor in a single call (retrying only what is left). A line
/// that cannot be written to standard output ends kbwatch with the reason (exit 9), except a
/// closed pipe, which is the quiet end `| head` expects.
func emit(_ line: String, to fd: Int32 = 1) {
    var text = line + "\n"
    text.withUTF8 { emit(bytes: UnsafeRawBufferPointer($0), to: fd) }
}

/// Writes `bytes`, a whole line with its newline, as ``emit(_:to:)`` writes a line.
func emit(bytes: UnsafeRawBufferPointer, to fd: Int32 = 1) {
    var offset = 0
    while offset < bytes.count {
        let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0 && errno == EINTR { continue }
        // The reader went away (a closed pipe): nothing more to say to anyone.
        if written < 0 && errno == EPIPE { exit(ExitCode.success.rawValue) }
        guard written > 0 else {
            // Standard error failing leaves no one to tell.
            guard fd != 2 else { return }
            let reason = written < 0 ? String(cString: strerror(errno)) : "nothing could be written"
            fail(.outputFailed, "cannot write standard output: \(reason)")
        }
        offset += written
    }
}

/// Says why on stderr in one line and exits with `code`.
func fail(_ code: ExitCode, _ message: String) -> Never {
    emit("kbwatch: " + TerminalText.escape(message), to: 2)
    if code == .badArguments { emit("Try 'kbwatch --help'.", to: 2) }
    exit(code.rawValue)
}

signal(SIGPIPE, SIG_IGN)
// One malloc arena for both threads: the loop thread allocates little, and an arena of its own
// would keep pages of its own resident for the whole watch.
ka_malloc_single_arena()
let environment = ProcessEnvironment.current
let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    fail(.badArguments, error.description)
}

let registry = BackendRegistry.shared
KeyboardAdapterBackends.register(in: registry)
// kbwatch installs the GNOME Shell extension, so it knows what of it is installed here.
registry.register(KeyboardAdapterBackends.gnome.reporting(setup: GnomeExtensionInstaller.doctorLines))

switch options.mode {
case .help:
    emit(Usage.text)
    exit(ExitCode.success.rawValue)
case .version:
    emit(Usage.version)
    exit(ExitCode.success.rawValue)
case .listBackends:
    Doctor.listBackends(registry).forEach { emit($0) }
    exit(ExitCode.success.rawValue)
case .doctor:
    Doctor.report(registry, environment: environment, chosen: options.backend).forEach { emit($0) }
    exit(ExitCode.success.rawValue)
case .installGnomeExtension, .uninstallGnomeExtension:
    do throws(InstallFailure) {
        let lines =
            options.mode == .installGnomeExtension
            ? try GnomeExtensionInstaller.install(environment: environment, shellVersion: options.gnomeShellVersion)
            : try GnomeExtensionInstaller.uninstall(environment: environment)
        lines.forEach { emit(TerminalText.escape($0)) }
    } catch {
        fail(.extensionFailed, error.description)
    }
    exit(ExitCode.success.rawValue)
case .watch, .state, .show, .hide, .serve:
    break
}

let writer: any EventWriter =
    switch options.style {
    case .human: HumanWriter()
    case .json: JSONWriter()
    case .format(let template): FormatWriter(template: template)
    }

// SIGINT and SIGTERM end the watch cleanly: stop the backend (the lines already produced are
// written by then), exit 0. They are blocked before the loop's thread starts, so that thread
// inherits the mask and only the main thread takes them, in sigwait; this also covers a
// background job of a non-interactive shell, which starts with SIGINT ignored.
var stopSignals = sigset_t()
sigemptyset(&stopSignals)
sigaddset(&stopSignals, SIGINT)
sigaddset(&stopSignals, SIGTERM)
pthread_sigmask(SIG_BLOCK, &stopSignals, nil)

if options.fromService { ServiceModes.fromService(options: options, writer: writer, stopSignals: &stopSignals) }

// The source: a recording, or the display server's backend.
let backend: any KeyboardBackend
if let path = options.replayPath {
    let replay = ReplayBackend(
        source: .file(path), speed: options.speed.map(ReplayBackend.Speed.factor) ?? .asFastAsPossible)
    if case .unavailable(let reason) = replay.availability() { fail(.badRecording, reason) }
    backend = replay
} else {
    do {
        backend = try registry.select(name: options.backend, environment: environment)
    } catch {
        switch error {
        case .noDisplayServer:
            if options.mode == .serve {
                ServiceModes.serveUnavailable(error.description, environment: environment, stopSignals: &stopSignals)
            }
            fail(.noDisplayServer, error.description)
        case .unknownBackend: fail(.badArguments, error.description)
        case .unavailable, .noneAvailable: fail(.backendUnavailable, error.description)
        }
    }
}
var recorder: ObservationRecorder?
if let path = options.recordPath {
    do {
        recorder = try ObservationRecorder(path: path) { failure in
            if failure.isClosedPipe { exit(ExitCode.success.rawValue) }
            fail(.outputFailed, failure.description)
        }
    } catch {
        fail(.badArguments, "\(error)")
    }
}

let manager = KeyboardManager(
    backend: backend, configuration: .init(settleInterval: options.settleMilliseconds / 1000, recorder: recorder))
// kbwatch has no windows of its own: without --pid, --window or --app-id there is no app to judge
// ownership against, so `local` stays unknown rather than always false.
manager.setAppIdentity(
    AppIdentity(processIDs: options.processIDs, windowIDs: options.windowIDs, appIDs: options.appIDs))

// The event line being written, kept from one event to the next (the run-loop thread's only).
let eventLine = LineBuffer()

// Lines are written on the manager's run-loop thread as each event is produced: no hop to another
// thread between the display server and stdout. Events, layout changes and the end of the
// backend come in the order they happened.
// `--state` prints the state once instead.
let subscriptions =
    options.mode != .watch
    ? []
    : [
        manager.onEvent(delivery: .immediate) { [writer, eventLine] update in
            eventLine.removeAll()
            writer.write(update, into: eventLine)
            eventLine.withBytes { emit(bytes: $0) }
        },
        manager.onLayoutChange(delivery: .immediate) { [writer] state in
            writer.line(forLayoutChange: state, at: Date()).map { emit($0) }
        },
        manager.onStop(delivery: .immediate) { failure in
            guard let failure else { exit(ExitCode.success.rawValue) }
            fail(failure.kind == .malformedInput ? .badRecording : .backendFailed, failure.description)
        },
    ]

let progressLines =
    options.progress && options.mode == .watch
    ? manager.onProgress(delivery: .immediate) { [writer] in emit(writer.line(forProgress: $0)) } : nil

do {
    try manager.start()
} catch let failure as BackendFailure {
    // A backend that cannot connect at start fails as for a lost connection: the display server
    // is not reachable (exit 3, as when the availability check finds none), whatever the moment.
    switch failure.kind {
    case .malformedInput: fail(.badRecording, failure.description)
    case .connectionLost:
        if options.mode == .serve {
            manager.stop()
            ServiceModes.serveUnavailable(failure.description, environment: environment, stopSignals: &stopSignals)
        }
        fail(.noDisplayServer, failure.description)
    case .other: fail(.backendUnavailable, failure.description)
    }
} catch {
    fail(.backendUnavailable, "\(error)")
}

// Start-up is over: what it allocated and freed goes back to the system, and so do the code
// pages only start-up ran (argument parsing, backend selection, connecting), rather than staying
// resident for the whole watch; the code a watch runs maps its pages again at its first event.
if options.mode == .watch || options.mode == .serve {
    ka_malloc_trim()
    _ = ka_release_code_pages()
}

if options.mode == .serve { ServiceModes.serve(manager, options: options, stopSignals: &stopSignals) }

if options.mode == .state {
    let keyboards = manager.visibleKeyboards
    let reserved = manager.reservedStrips
    writer.lines(forState: keyboards, services: manager.keyboardServices, reserved: reserved).forEach { emit($0) }
    manager.stop()
    exit(keyboards.isEmpty ? ExitCode.noKeyboardVisible.rawValue : ExitCode.success.rawValue)
}

if options.mode == .show || options.mode == .hide {
    // Success means the keyboard (or the window manager) accepted the request; what happens
    // next is for a watcher to see.
    do throws(KeyboardControlError) {
        if options.mode == .show { try manager.showKeyboard() } else { try manager.hideKeyboard() }
    } catch {
        manager.stop()
        switch error {
        case .notVisible: fail(.noKeyboardVisible, "no keyboard is visible to hide")
        case .unsupported: fail(.unsupported, error.description)
        case .failed: fail(.requestFailed, error.description)
        }
    }
    manager.stop()
    exit(ExitCode.success.rawValue)
}

var received: Int32 = 0
while sigwait(&stopSignals, &received) != 0 {}
manager.stop()
withExtendedLifetime((subscriptions, progressLines)) {}
exit(ExitCode.success.rawValue)
