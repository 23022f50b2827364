import Glibc
import KeyboardBackendInterface

/// Joins what the keyboards' own services say with what the X server shows. On X11 the window is
/// the truth about where a keyboard is and whether it is mapped; a service adds the program's
/// pid from the bus where the window does not carry `_NET_WM_PID`, takes show and hide requests,
/// and tells `--doctor` whether it agrees with the window.
struct ServiceJoinSink: ObservationSink {
    let inner: any ObservationSink
    let services: [any KeyboardService]

    func deliver(_ observation: KeyboardObservation) {
        // Copied only when it is changed: an observation is a large value.
        guard observation.keyboard.pid == nil,
            let service = services.first(where: { $0.keyboardName == observation.keyboard.name }),
            service.state.isRunning, let pid = service.state.pid
        else { return inner.deliver(observation) }
        var joined = observation
        joined.keyboard.pid = pid
        inner.deliver(joined)
    }

    func finish(failure: BackendFailure?) { inner.finish(failure: failure) }
}

extension X11Backend {
    /// The lines `--doctor` prints about the services: what each says (asked now, never starting
    /// a keyboard), whether it agrees with the windows, and how show and hide are done here.
    func serviceDiagnosis(keyboards: [KeyboardObservation], windowManager: String?) -> [String] {
        var lines: [String] = []
        var running: [String] = []
        let states = services.map { $0.probe() }
        for (service, state) in zip(services, states) {
            lines.append("x11: keyboard service \(service.name) (\(service.address)): \(state)")
            guard state.isRunning else { continue }
            running.append(service.name)
            let windows = keyboards.filter {
                $0.keyboard.name == service.keyboardName && $0.isShown
            }
            if let visible = state.isVisible {
                let agree = visible == !windows.isEmpty
                lines.append(
                    "x11: \(service.name) says \(visible ? "visible" : "hidden"); its window is "
                        + (windows.isEmpty ? "not visible" : "visible") + (agree ? " (they agree)" : " (they disagree)")
                )
            }
        }
        let wm = windowManager.map { "the window manager (\($0)) iconifies the keyboard" }
        if running.isEmpty {
            lines.append(
                "x11: show: unsupported: " + KeyboardRequestRouting.reason(self, doing: "show", states: states))
            lines.append("x11: hide: " + (wm ?? "unsupported: no keyboard service runs and there is no window manager"))
        } else {
            lines.append("x11: show: through \(running.joined(separator: ", "))'s service")
            lines.append(
                "x11: hide: through \(running.joined(separator: ", "))'s service"
                    + (wm.map { "; other keyboards: \($0)" } ?? ""))
        }
        return lines
    }
}
