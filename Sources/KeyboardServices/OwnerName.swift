import Glibc

extension ServiceInterface {
    /// The name of the keyboard the program `pid` (the bus name's owner) is: its program's name
    /// when ``namesKeyboardByOwner`` (squeekboard, phosh-osk-stub, Stevia's phosh-osk-stevia, or
    /// any other program serving `sm.puri.OSK0`), else ``keyboardName``; also ``keyboardName`` when
    /// the owner's name cannot be read.
    func keyboardName(ownedBy pid: Int32?) -> String {
        guard namesKeyboardByOwner, let pid, let program = ProcessName.of(pid) else { return keyboardName }
        return program
    }
}

/// A process's program name: `/proc/PID/comm`, which the kernel cuts at 15 bytes, made whole from
/// the command line when it was cut (`phosh-osk-stevi` is `phosh-osk-stevia`). The name the
/// program was started as, so a script named by its `#!` line is named after the script.
enum ProcessName {
    /// The kernel keeps at most 15 bytes of the name, then a newline: a longer read is never needed.
    static let readLimit = 64
    /// The longest name `comm` keeps: a name this long may have been cut.
    static let commLength = 15
    /// How much of the command line is read to make a cut name whole.
    static let commandLineLimit = 4096
    /// The longest program name taken from the command line.
    static let nameLimit = 255

    /// The name of process `pid`, nil when it cannot be read (gone, or another pid namespace's).
    static func of(_ pid: Int32) -> String? {
        guard let comm = read("/proc/\(pid)/comm", limit: readLimit)?.prefix(while: { $0 != UInt8(ascii: "\n") }),
            !comm.isEmpty
        else { return nil }
        let cut = Array(comm)
        guard cut.count >= commLength, let line = read("/proc/\(pid)/cmdline", limit: commandLineLimit) else {
            return text(cut)
        }
        // The interpreter and its script (`python3 /usr/bin/onboard`), or the program itself: the
        // first of the first two words whose last part starts with the cut name.
        for word in line.split(separator: 0, omittingEmptySubsequences: false).prefix(2) {
            let name = Array(word.split(separator: UInt8(ascii: "/")).last ?? [])
            if name.count > cut.count, name.count <= nameLimit, name.starts(with: cut) { return text(name) }
        }
        return text(cut)
    }

    /// Valid UTF-8 without control characters, else nil.
    private static func text(_ bytes: [UInt8]) -> String? {
        guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func read(_ path: String, limit: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: limit)
        let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, limit) }
        return count > 0 ? Array(bytes.prefix(count)) : nil
    }
}
