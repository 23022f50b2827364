import Foundation
import KeyboardAdapter
import KeyboardAdapterCore
import TestSupport

// The manager's lifecycle races (see `LifecycleRaces`) in a process of their own, for the
// integration suites whose display server and bus only the session's user may reach (KWin's,
// GNOME Shell's): run as that user with the session's environment, on the shipped backend named
// by the first argument as the `KeyboardAdapter` product composes it.
//
//   kbraces BACKEND KEYBOARD-ID-PREFIX [ROUNDS]
//
// Prints one line of figures and exits 0, or prints what failed and exits 1.
let arguments = CommandLine.arguments
guard arguments.count >= 3, arguments.count <= 4, let rounds = Int(arguments.count == 4 ? arguments[3] : "1000")
else {
    FileHandle.standardError.write(Data("usage: kbraces BACKEND KEYBOARD-ID-PREFIX [ROUNDS]\n".utf8))
    exit(2)
}
let name = arguments[1]
guard let registration = KeyboardAdapterBackends.registrations.first(where: { $0.name == name }) else {
    FileHandle.standardError.write(Data("kbraces: no backend named \(name)\n".utf8))
    exit(2)
}
do {
    try LifecycleRaces.runAll(keyboard: arguments[2], rounds: rounds) { registration.make() }
} catch {
    print("kbraces: \(error)")
    exit(1)
}
