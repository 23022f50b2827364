import Foundation
import TestSupport

/// The KeyboardAdapter extension's signals on the shell's session bus, heard by `dbus-monitor`
/// beside kbwatch: what GNOME Shell itself drew of each slide, whatever kbwatch made of it.
struct ShellSlides {
    /// `dbus-monitor`: a header line per signal, then its arguments, a line each.
    let monitor: WatchedProcess

    /// Starts listening; returns once `dbus-monitor` is connected.
    init(_ gnome: HeadlessGnomeShell) throws {
        monitor = try gnome.watchCommand([
            "dbus-monitor", "--session", "type='signal',interface='\(Self.interface)'",
        ])
        // It hears its own name given once it listens.
        guard monitor.lines.first(from: 0, timeout: 10, where: { $0.contains("member=NameAcquired") }) != nil else {
            throw TestFailure("dbus-monitor did not start: \(monitor.errors)")
        }
    }

    /// One step of a slide: the frame's `y` and when the monitor heard it.
    struct Step: Equatable {
        var y: Int
        var time: Double
    }

    /// The steps (`Moved`) that followed the `VisibilityChanged` of each slide in `slides`
    /// (numbered from 0 in the order they began) with the keyboard's top above `bottom` (on the
    /// monitor), each place once, once the shell has stopped sending steps for them.
    func steps(ofSlides slides: Int..., above bottom: Int) throws -> [[Step]] {
        var all = stepsPerSlide()
        // kbwatch reported the last step already; the monitor may hear it a moment later.
        for _ in 0..<20 {
            Thread.sleep(forTimeInterval: 0.15)
            let again = stepsPerSlide()
            if again == all { break }
            all = again
        }
        return try slides.map { slide in
            guard slide < all.count else {
                throw TestFailure("the shell announced \(all.count) slides, not \(slide + 1): \(all)")
            }
            // Steps a fraction of a pixel apart are one place: kbwatch reports the first.
            var steps: [Step] = []
            for step in all[slide] where step.y < bottom && step.y != steps.last?.y { steps.append(step) }
            return steps
        }
    }

    /// Every `Moved` after each `VisibilityChanged`, in order: its header says when
    /// (`time=`), and the second `double` after it is its frame's `y`.
    private func stepsPerSlide() -> [[Step]] {
        var slides: [[Step]] = []
        var step: (time: Double, doubles: Int)?
        for line in monitor.lines.all.map(\.text) {
            if line.hasPrefix("signal ") {
                step = nil
                guard line.contains("interface=\(Self.interface);") else { continue }
                if line.hasSuffix("member=VisibilityChanged") {
                    slides.append([])
                } else if line.hasSuffix("member=Moved"), !slides.isEmpty,
                    let field = line.split(separator: " ").first(where: { $0.hasPrefix("time=") }),
                    let time = Double(field.dropFirst(5))
                {
                    step = (time, 0)
                }
            } else if let seen = step, line.trimmingCharacters(in: .whitespaces).hasPrefix("double "),
                let value = line.split(separator: " ").last.flatMap({ Double($0) })
            {
                step?.doubles += 1
                if seen.doubles + 1 == 2 {
                    slides[slides.count - 1].append(Step(y: Int(value.rounded()), time: seen.time))
                    step = nil
                }
            }
        }
        return slides
    }

    /// Whether the shell drew `steps` smoothly: six steps or more, none over 50 ms (three frames at
    /// 60 Hz) after the one before.
    static func isSmooth(_ steps: [Step]) -> Bool {
        steps.count >= 6 && zip(steps, steps.dropFirst()).allSatisfy { $1.time - $0.time <= 0.05 }
    }

    private static let interface = "org.keyboardadapter.GnomeShell1"
}
