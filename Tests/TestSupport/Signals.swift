import Foundation

extension ChildProcess {
    /// True once the process handles `signal`, with a handler or by blocking it for a signalfd
    /// (wvkbd does that), as `/proc/PID/status` tells: programs driven by signals die from one
    /// sent before they are ready.
    public func handles(_ signal: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
        let bit = UInt64(1) << UInt64(signal - 1)
        return ["SigCgt:", "SigBlk:"].contains { field in
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
                let mask = UInt64(line.dropFirst(field.count).trimmingCharacters(in: .whitespaces), radix: 16)
            else { return false }
            return mask & bit != 0
        }
    }
}
