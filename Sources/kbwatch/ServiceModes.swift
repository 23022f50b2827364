import Glibc
import KbwatchOutput
import KeyboardAdapter
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

    /// Watches, or asks the state, or shows or hides, through the session service; never returns.
    static func fromService(options: Options, writer: any EventWriter, stopSignals: inout sigset_t) -> Never {
        let client = SessionServiceClient(environment: ProcessEnvironment.current)
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
                try client.watch(
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
            default: fail(.serviceUnavailable, "the session service cannot be reached: \(error)")
            }
        }
        var received: Int32 = 0
        while sigwait(&stopSignals, &received) != 0 {}
        client.stop()
        exit(ExitCode.success.rawValue)
    }
}
