import Foundation

extension X11Session {
    /// Starts a program that makes a top-level window of its own (xmessage), titled `title` (a
    /// title no other window has) with `instance` as its `WM_CLASS` instance, at `x`,`y`, and
    /// returns the process and the window's id once the window is mapped. The X server knows the
    /// window as that process's: tests that judge an app by its process need such a window, since
    /// a window the test makes itself is the test's, whatever `_NET_WM_PID` it is given.
    public func startWindowProcess(
        title: String, instance: String, x: Int, y: Int, width: Int = 300, height: Int = 200
    ) throws -> (process: ChildProcess, window: UInt) {
        let process = try start(
            "xmessage", ["-name", instance, "-title", title, "-geometry", "\(width)x\(height)+\(x)+\(y)", title])
        return (process, try window(titled: title, of: process))
    }

    /// The id of the mapped window titled `title`, waited for while `process` runs.
    public func window(titled title: String, of process: ChildProcess) throws -> UInt {
        var found: UInt?
        try Wait.require("the window \"\(title)\" (\(process.log))", timeout: 15) {
            let result = try? Programs.run(
                "xdotool", ["search", "--onlyvisible", "--name", "^\(title)$"], environment: environment, timeout: 5)
            found = result?.output.split(separator: "\n").compactMap { UInt($0) }.first
            return found != nil || !process.isRunning
        }
        guard let found else { throw TestFailure("\(title) exited: \(process.log)") }
        return found
    }
}
