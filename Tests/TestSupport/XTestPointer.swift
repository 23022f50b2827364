import CX11
import Foundation

/// The XTest extension's fake pointer, as a person's mouse: motion and button events the server
/// delivers exactly like real ones (an implicit grab on press, motion to the grabbing window).
/// libXtst is loaded at run time (xdotool's own dependency), so building needs no -dev package.
private enum XTestLibrary {
    typealias Motion = @convention(c) (OpaquePointer?, Int32, Int32, Int32, UInt) -> Int32
    typealias Button = @convention(c) (OpaquePointer?, UInt32, Int32, UInt) -> Int32

    /// The two entry points, or why they cannot be had.
    static let entryPoints: Result<(motion: Motion, button: Button), TestFailure> = {
        guard let library = dlopen("libXtst.so.6", RTLD_NOW) else {
            return .failure(TestFailure("libXtst.so.6 cannot be loaded: \(String(cString: dlerror()))"))
        }
        guard let motion = dlsym(library, "XTestFakeMotionEvent"), let button = dlsym(library, "XTestFakeButtonEvent")
        else { return .failure(TestFailure("libXtst.so.6 lacks XTestFakeMotionEvent or XTestFakeButtonEvent")) }
        return .success((unsafeBitCast(motion, to: Motion.self), unsafeBitCast(button, to: Button.self)))
    }()
}

extension XTestClient {
    /// Moves the pointer to (`x`, `y`) on the root window and waits until the server has done it.
    public func movePointer(x: Int, y: Int) throws {
        let entry = try XTestLibrary.entryPoints.get()
        _ = entry.motion(handle, -1, Int32(x), Int32(y), 0)
        XSync(handle, 0)
    }

    /// Presses (`true`) or releases the pointer's `button` (1: the first) and waits until the
    /// server has done it.
    public func pressButton(_ button: UInt32 = 1, _ pressed: Bool) throws {
        let entry = try XTestLibrary.entryPoints.get()
        _ = entry.button(handle, button, pressed ? 1 : 0, 0)
        XSync(handle, 0)
    }

}
