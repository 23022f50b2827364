import Foundation
import TestSupport

/// CMake for the Qt tests: the module, the example and the apps built on the module's package.
enum CMake {
    /// What configuring and building a project came to.
    enum Outcome: Sendable {
        /// Built, with the compiler's and CMake's warnings (the tests allow none).
        case built(warnings: [String])
        /// Qt 6's development files are missing (`find_package(Qt6 …)` failed): a skip, a failure
        /// under CI.
        case qtMissing
        /// Anything else, with what CMake said.
        case failed(String)
    }

    /// `cmake` with `arguments`, its standard error too (the compiler's warnings, CMake's reasons).
    static func run(_ arguments: [String]) -> (status: Int32, output: String) {
        let result = try? Programs.run("/bin/sh", ["-c", "exec \"$@\" 2>&1", "sh", "cmake"] + arguments, timeout: 600)
        return result ?? (-1, "cmake \(arguments.joined(separator: " ")) did not finish")
    }

    /// Configures `source` into `directory` with `options` (`-D…`) and builds it on two cores.
    static func build(_ source: String, in directory: String, options: [String] = []) -> Outcome {
        let configure = run(["-S", source, "-B", directory] + options)
        if configure.status != 0 {
            // find_package(Qt6 ... COMPONENTS ...) names Qt6 or the component it did not find.
            let qtMissing =
                configure.output.contains("Qt6Config.cmake")
                || configure.output.contains("Failed to find required Qt component")
                || configure.output.contains("provided by \"Qt6")
            return qtMissing ? .qtMissing : .failed("cmake -S \(source) -B \(directory):\n\(configure.output)")
        }
        let compile = run(["--build", directory, "--parallel", "2"])
        guard compile.status == 0 else { return .failed("cmake --build \(directory):\n\(compile.output)") }
        let warnings = (configure.output + compile.output).split(separator: "\n").map(String.init).filter {
            $0.localizedCaseInsensitiveContains("warning")
        }
        return .built(warnings: warnings)
    }
}
