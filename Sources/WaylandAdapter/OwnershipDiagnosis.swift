import Glibc

extension WaylandBackend {
    /// What `isLocal` is judged by on this compositor, for `--doctor`: the foreign toplevels found
    /// (how many, which app id is activated; on a connection of their own, as when watching) and
    /// whether sway's IPC gives pids, or why not.
    func ownershipDiagnosis(_ session: WaylandSession) -> [String] {
        guard session.offers(WaylandSession.toplevelsInterface) else {
            return [
                "focus for 'local': unknown: the compositor lacks \(WaylandSession.toplevelsInterface), so 'local' "
                    + "is null unless the app says whether its text input is active (textInputActive)"
            ]
        }
        var lines: [String]
        switch ToplevelConnection.survey(displayName: displayName) {
        case .success(let survey):
            let activated: String
            switch survey.activation {
            case .toplevels(let appIDs):
                activated = "activated: " + appIDs.map { $0 ?? "(no app id)" }.joined(separator: ", ")
            case .noneActivated: activated = "none activated"
            case .unknown: activated = "which is activated is unknown"
            }
            let untracked =
                survey.untracked > 0
                ? ", \(survey.untracked) more not followed (at most \(ForeignToplevels.maximumTracked) are)" : ""
            lines = [
                "focus for 'local': the activated toplevel (\(WaylandSession.toplevelsInterface)): "
                    + "\(survey.tracked) toplevels followed\(untracked), \(activated); app ids are compared"
            ]
        case .failure(let error):
            lines = [
                "focus for 'local': unknown for now: the connection for \(WaylandSession.toplevelsInterface) ended "
                    + "(\(error.description)); a compositor drops a client its list overflows, and watching tries "
                    + "again every \(Int(ToplevelConnection.retryDelay)) s"
            ]
        }
        switch SwayIPC.connect(path: environment["SWAYSOCK"], compositorPID: session.compositorPID) {
        case .success(let (path, socket, pid)):
            close(socket)
            lines.append("pids: through sway's IPC at \(path) (sway pid \(pid)), focus events as they come")
        case .failure(let unavailable):
            lines.append("pids: not compared (\(unavailable.reason)): only app ids decide 'local' here")
        }
        return lines
    }
}
