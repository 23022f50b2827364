import Glibc

/// The process's environment variables, read from the C library's `environ` as
/// `ProcessInfo.processInfo.environment` reads them (each `NAME=value` split at its first `=`,
/// a later entry of the same name winning), without starting Foundation's `ProcessInfo`, whose
/// set-up alone makes a process such as kbwatch map several hundred KiB more of its own code.
/// Backends and services take it as the default environment.
///
/// Like `ProcessInfo`, it reads the environment as it is now: a variable another thread sets at
/// the same moment may or may not be seen.
public enum ProcessEnvironment {
    /// The variables, by name.
    public static var current: [String: String] {
        var variables: [String: String] = [:]
        let start: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        guard var entry = start else { return variables }
        while let pair = entry.pointee {
            let text = String(cString: pair)
            if let equals = text.utf8.firstIndex(of: UInt8(ascii: "=")) {
                let name = String(decoding: text.utf8[..<equals], as: UTF8.self)
                variables[name] = String(decoding: text.utf8[text.utf8.index(after: equals)...], as: UTF8.self)
            }
            entry += 1
        }
        return variables
    }
}
