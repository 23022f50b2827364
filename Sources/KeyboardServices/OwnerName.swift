import Glibc

extension ServiceInterface {
    /// The name of the keyboard the program `pid` (the bus name's owner) is: its executable name
    /// when that is one of ``ownerKeyboards``, else ``keyboardName``.
    func keyboardName(ownedBy pid: Int32?) -> String {
        guard let pid, !ownerKeyboards.isEmpty, let program = ProcessName.of(pid), ownerKeyboards.contains(program)
        else { return keyboardName }
        return program
    }
}

/// A process's executable name, from `/proc/PID/comm`.
enum ProcessName {
    /// The kernel keeps at most 15 bytes of the name, then a newline: a longer read is never needed.
    static let readLimit = 64

    /// The name of process `pid`, nil when it cannot be read (gone, or another pid namespace's).
    static func of(_ pid: Int32) -> String? {
        let descriptor = open("/proc/\(pid)/comm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: readLimit)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, readLimit) }
        guard count > 0 else { return nil }
        let name = bytes.prefix(count).prefix { $0 != UInt8(ascii: "\n") }
        return name.isEmpty ? nil : String(decoding: name, as: UTF8.self)
    }
}
