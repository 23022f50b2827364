import Foundation
import ScreenCapture

// kbshot: saves what the X server in $DISPLAY shows as a PNG file, without imagemagick or xwd.
//   kbshot OUT.png                 the whole screen
//   kbshot OUT.png X Y WIDTH HEIGHT  a rectangle of it (root coordinates)

func fail(_ message: String) -> Never {
    _ = "kbshot: \(message)\n".withCString { write(STDERR_FILENO, $0, strlen($0)) }
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 1 || arguments.count == 5, !arguments[0].hasPrefix("-") else {
    fail("usage: kbshot OUT.png [X Y WIDTH HEIGHT]")
}
do {
    let grabber = try ScreenGrabber()
    let image: RGBImage
    if arguments.count == 5 {
        let numbers = arguments[1...].compactMap { Int($0) }
        guard numbers.count == 4 else { fail("X Y WIDTH HEIGHT must be integers") }
        let size = grabber.screenSize
        let x = max(0, numbers[0])
        let y = max(0, numbers[1])
        image = try grabber.capture(
            x: x, y: y, width: min(numbers[2], size.width - x),
            height: min(numbers[3], size.height - y))
    } else {
        image = try grabber.capture()
    }
    try PNGEncoder.write(image, to: arguments[0])
} catch {
    fail("\(error)")
}
