import Foundation

/// A directory of this test process's own for files a test leaves for people to look at
/// (screenshots): `$TMPDIR/kbadapter-tests-UID-PID`, so that runs by different users, or two at
/// once, never write to one path.
public enum ScratchDirectory {
    /// The directory, made on first use.
    public static func path(_ name: String) throws -> String {
        let directory = NSTemporaryDirectory() + "kbadapter-tests-\(getuid())-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory + "/" + name
    }
}
