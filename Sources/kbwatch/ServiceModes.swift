import Glibc
import KbwatchOutput
import KeyboardAdapter
@_spi(BackendRun) import KeyboardBackendInterface
import KeyboardSessionService

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `--serve` and `--from-service`: kbwatch as the session's one watcher, and as its client.
enum ServiceModes {
    /// Serves `manager` (started) on the session bus until SIGINT or SIGTERM, or until no client
    /// has subscribed for the idle time; never returns.
    static func serve(_ manager: KeyboardManager, options: Options, stopSignals: inout sigset_t) -> Never {
        let service = KeyboardSessionService(
            manager: manager,
            configuration: SessionServiceConfiguration(
                idleExit: options.idleExit, maximumSubscribers: options.maximumSubscribers,
                maximumSubscribersPerClient: options.maximumSubscribersPerClient))
        do throws(SessionServiceError) {
            try service.start(onIdle: { exit(ExitCode.success.rawValue) })
        } catch {
            manager.stop()
            fail(.serviceUnavailable, error.description)
        }
        var received: Int32 = 0
        while sigwait(&stopSignals, &received) != 0 {}
        service.stop()
        manager.stop()
        exit(ExitCode.success.rawValue)
    }

    /// `--serve` with no display server to watch: says why on standard error (the bus's log) and,
    /// for a moment, to every caller as `….Error.NoDisplay` with the fix, then exits 3; never returns.
    static func serveUnavailable(_ reason: String, environment: [String: String], stopSignals: inout sigset_t) -> Never
    {
        let explanation = noDisplayExplanation(reason, environment: environment)
        emit("kbwatch: " + TerminalText.escape(explanation), to: 2)
        let service: UnavailableSessionService
        do throws(SessionServiceError) {
            service = try UnavailableSessionService(
                reason: explanation, environment: environment, onEnd: { exit(ExitCode.noDisplayServer.rawValue) })
        } catch {
            exit(ExitCode.noDisplayServer.rawValue)
        }
        var received: Int32 = 0
        while sigwait(&stopSignals, &received) != 0 {}
        service.stop()
        exit(ExitCode.noDisplayServer.rawValue)
    }

    /// Why the service cannot watch, and what makes the session's display known to the processes
    /// the bus starts: `reason` is the backends' own account, given when the environment names a
    /// display that cannot be reached.
    static func noDisplayExplanation(_ reason: String, environment: [String: String]) -> String {
        let named = ["DISPLAY", "WAYLAND_DISPLAY"].compactMap { name in
            environment[name].flatMap { $0.isEmpty ? nil : "\(name)=\($0)" }
        }
        let cause =
            named.isEmpty
            ? "the bus started it with no display in its environment (neither DISPLAY nor WAYLAND_DISPLAY)"
            : "\(reason); the display its environment names (\(named.joined(separator: ", "))) is not the "
                + "session's, or is gone"
        return "the session service cannot watch: \(cause). Fix: once the display server is up, the session's "
            + "start-up runs `dbus-update-activation-environment DISPLAY WAYLAND_DISPLAY XDG_CURRENT_DESKTOP` "
            + "(where systemd starts the bus's services, also `systemctl --user import-environment DISPLAY "
            + "WAYLAND_DISPLAY XDG_CURRENT_DESKTOP`); then call again"
    }

    /// Watches, or asks the state, or shows or hides, through the session service; never returns.
    static func fromService(options: Options, writer: any EventWriter, stopSignals: inout sigset_t) -> Never {
        let client = SessionServiceClient(environment: ProcessEnvironment.current)
        var watching: SessionServiceWatch?
        let subscription = SessionServiceClient.Options(
            progress: options.progress, caller: false, processIDs: options.processIDs, windowIDs: options.windowIDs,
            appIDs: options.appIDs)
        do throws(SessionServiceClient.Failure) {
            switch options.mode {
            case .state:
                let state = try client.state(options: subscription)
                writer.lines(forState: state.keyboards, services: state.services, reserved: state.reserved).forEach {
                    emit($0)
                }
                exit(state.keyboards.isEmpty ? ExitCode.noKeyboardVisible.rawValue : ExitCode.success.rawValue)
            case .show, .hide:
                try client.request(show: options.mode == .show)
                exit(ExitCode.success.rawValue)
            default:
                watching = try client.watch(
                    options: subscription,
                    onReceive: { received in
                        // Every line is written from the values read, in kbwatch's own format:
                        // nothing the bus carried reaches the output as it came.
                        switch received {
                        case .update(let update): emit(writer.line(for: update))
                        case .progress(let progress): emit(writer.line(forProgress: progress))
                        case .refused(let reason): emit("kbwatch: " + TerminalText.escape(reason), to: 2)
                        }
                    },
                    onEnd: { reason in fail(.backendFailed, reason) })
            }
        } catch {
            switch error.name.map({ $0.replacing(SessionServiceNames.errorPrefix, with: "") }) {
            case "NotVisible": fail(.noKeyboardVisible, error.description)
            case "Unsupported": fail(.unsupported, error.description)
            case "Failed": fail(.requestFailed, error.description)
            case "NoDisplay": fail(.noDisplayServer, error.description)
            default:
                if error.name == "org.freedesktop.DBus.Error.ServiceUnknown" {
                    fail(
                        .serviceUnavailable,
                        "the session service cannot be reached: \(error); the bus knows no "
                            + "\(SessionServiceNames.busName): install kbwatch (its file "
                            + "dbus-1/services/\(SessionServiceNames.busName).service under a directory of "
                            + "XDG_DATA_DIRS), or start it with `kbwatch --serve`")
                }
                fail(.serviceUnavailable, "the session service cannot be reached: \(error)")
            }
        }
        var received: Int32 = 0
        while sigwait(&stopSignals, &received) != 0 {}
        watching?.stop()
        exit(ExitCode.success.rawValue)
    }
}
