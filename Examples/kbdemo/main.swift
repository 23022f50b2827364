import CXft
import Foundation

// kbdemo: an 800x600 window whose input bar stays above the on-screen keyboard.
//   kbdemo [--backend NAME] [--position X,Y]
// It prints one line per keyboard event and per resting place of the bar.

let usage = "usage: kbdemo [--backend NAME] [--position X,Y]"

func exitWithUsage(_ message: String) -> Never {
    let bytes = Array("kbdemo: \(message)\n\(usage)\n".utf8)
    bytes.withUnsafeBytes { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
    exit(2)
}

var backendName: String?
var position: (x: Int, y: Int)?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--backend":
        guard let value = arguments.popFirst() else { exitWithUsage("--backend needs a name") }
        backendName = value
    case "--position":
        let parts = arguments.popFirst()?.split(separator: ",").compactMap { Int($0) } ?? []
        guard parts.count == 2 else { exitWithUsage("--position needs X,Y") }
        position = (parts[0], parts[1])
    case "-h", "--help":
        print(usage)
        exit(0)
    default:
        exitWithUsage("unknown argument \(argument)")
    }
}

// The backend talks to the X server from its own thread, over its own connection.
XInitThreads()
signal(SIGPIPE, SIG_IGN)

let app: DemoApp
do {
    app = try DemoApp(backend: backendName, position: position)
} catch {
    let bytes = Array("kbdemo: \(error)\n".utf8)
    bytes.withUnsafeBytes { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
    exit(1)
}

let signalSources = app.messages.quitOnSignals([SIGINT, SIGTERM, SIGHUP])
let status = app.run()
signalSources.forEach { $0.cancel() }
exit(status)
