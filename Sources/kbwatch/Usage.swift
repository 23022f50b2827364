import KbwatchOutput
import KeyboardAdapter

/// `kbwatch --help`, and the exit codes.
enum Usage {
    static let version = "kbwatch 1.0.0"

    /// The shipped backends' names, from their registrations: `x11, wayland, kwin or gnome`.
    static var backendNames: String {
        let names = KeyboardAdapterBackends.registrations.map(\.name)
        guard let last = names.last, names.count > 1 else { return names.joined() }
        return names.dropLast().joined(separator: ", ") + " or " + last
    }

    static var text: String {
        """
        Usage: kbwatch [options]

        Watches the on-screen keyboards and input-method panels of this session and prints one
        line per keyboard event (willShow, didShow, willHide, didHide, willChangeFrame,
        didChangeFrame) until interrupted.

        Output:
          --json               JSON Lines, schema 1 (one object per event; see kbwatch(1))
          --format TEMPLATE    one line per event from a template, e.g. '%e %x %y %w %h'
                               (\\n and \\t are a newline and a tab; fields below)
        Source:
          --backend NAME       \(backendNames) (default: chosen from the session; also
                               KEYBOARD_ADAPTER_BACKEND)
          --replay FILE        play a recording instead of watching ('-' reads stdin)
          --speed N|max        replay speed factor from 0.01 to 10000 (default 1), or as fast as possible
          --record FILE        also record what the backend sees, for --replay
        Behaviour:
          --settle MS          how long a frame must stay put before a did event (default 50)
          --progress           also print every frame in between a will and its did ('progress')
          --pid PID            judge 'local' against this process (repeatable)
          --window ID          judge 'local' against this X11 window, decimal or 0x hex (repeatable)
          --app-id ID          judge 'local' against this app id: a Wayland app_id, an X11
                               WM_CLASS class or instance, a desktop file id (repeatable)
        Other modes:
          --state              print the visible keyboards once (and the keyboard services
                               that run); exit 1 when none is visible
          --show               ask the keyboard to show, through its own service (onboard);
                               exit 0 once it accepted
          --hide               ask the visible keyboard to hide: through its service when it
                               runs, else the window manager; exit 0 once it accepted
          --serve              serve this session's keyboards on the session bus as
                               org.keyboardadapter.Watcher, for every app (see kbwatch(1));
                               ends when no client has subscribed for 30 s
          --idle-exit S        with --serve: end after S seconds without a subscriber
          --stay               with --serve: never end for want of subscribers
          --max-subscribers N  with --serve: at most N clients subscribed at once (default 256)
          --max-subscribers-per-client N
                               with --serve: at most N of one sandboxed app or one process
                               (default 32)
          --from-service       watch (or --state, --show, --hide) through the session service
                               instead of watching here; the bus starts it when installed
          --install-gnome-extension
                               install and enable the GNOME Shell extension the gnome
                               backend needs, in the flavour this GNOME Shell loads
          --gnome-shell-version V
                               with --install-gnome-extension: install for GNOME Shell V
                               (such as 48) instead of the one that runs or is installed
          --uninstall-gnome-extension
                               disable and remove it
          --list-backends      list the backends, available or not and why
          --doctor             explain what this session offers and what kbwatch can see here
          -h, --help           this text
          --version            the version

        Format fields:
        \(FormatWriter.fields.map { "  %\($0.0)  \($0.1)" }.joined(separator: "\n"))

        Exit codes:
        \(ExitCode.allCases.map { "  \($0.rawValue)  \($0.meaning)" }.joined(separator: "\n"))
        """
    }
}

/// kbwatch's exit codes, each with one meaning.
enum ExitCode: Int32, CaseIterable {
    case success = 0
    case noKeyboardVisible = 1
    case badArguments = 2
    case noDisplayServer = 3
    case backendUnavailable = 4
    case badRecording = 5
    case backendFailed = 6
    case unsupported = 7
    case requestFailed = 8
    case outputFailed = 9
    case serviceUnavailable = 10
    case extensionFailed = 11

    var meaning: String {
        switch self {
        case .success: "success (also after SIGINT or SIGTERM)"
        case .noKeyboardVisible: "--state: no keyboard is visible; --hide: none is visible to hide"
        case .badArguments: "bad arguments"
        case .noDisplayServer:
            "no display server is reachable (--serve: after answering the calls that came meanwhile with why, "
                + "and how to give the bus the display)"
        case .backendUnavailable: "the backend cannot run in this session (the message says why)"
        case .badRecording: "the recording cannot be read or has a malformed line (the message names it)"
        case .backendFailed: "the display server went away while watching (keyboards reported hidden first)"
        case .unsupported: "--show, --hide: this session cannot do it (the message says why)"
        case .requestFailed: "--show, --hide: the keyboard refused or did not answer (the message says why)"
        case .outputFailed: "standard output or the recording cannot be written (the message names it and why)"
        case .serviceUnavailable:
            "--serve: the session bus cannot be used or another service serves it; --from-service: the "
                + "service cannot be reached (the message says why)"
        case .extensionFailed:
            "--install-gnome-extension, --uninstall-gnome-extension: it could not be done (the message says why)"
        }
    }
}
