import CGLib
import Glibc
import KeyboardAdapter

// kbglib: the keyboards of this session in a GLib program, whose main thread runs
// g_main_loop_run() and never the main queue, so its closures use delivery .descriptor.
//   kbglib [--exit-after N]
// One line per update ("willShow xvkbd 0,0 638x192 on the main thread"); exits 0 on SIGTERM
// or SIGINT, or after N updates.

let arguments = Array(CommandLine.arguments.dropFirst())
let limit = arguments.count == 2 && arguments[0] == "--exit-after" ? Int(arguments[1]) : nil
guard arguments.isEmpty || limit ?? 0 > 0 else {
    say("usage: kbglib [--exit-after N]", to: 2)
    exit(2)
}

let loop: OpaquePointer = g_main_loop_new(nil, 0)
// Before the manager starts: from here on, GLib turns these signals into loop callbacks. The loop
// itself is user_data; it lives until the process exits.
for signal in [SIGTERM, SIGINT] {
    g_unix_signal_add(
        signal,
        { loop in
            g_main_loop_quit(OpaquePointer(loop))
            return 1  // G_SOURCE_CONTINUE
        }, UnsafeMutableRawPointer(loop))
}

do {
    let watcher = KeyboardWatcher(
        manager: try KeyboardManager.forThisSession(), loop: loop, exitAfter: limit)
    try watcher.start()
    g_main_loop_run(loop)
    watcher.stop()
} catch {
    say("kbglib: \(error)", to: 2)
    exit(1)
}
exit(0)
