import KeyboardAdapter

/// The frames of the keyboards visible now, as the updates tell them, and what they mean for a
/// window: a keyboard is added or moved by an update that leaves it visible, and removed by one
/// that hides it (from its `will` event on, as UIKit apps move their content on `willHide`).
struct KeyboardFrames {
    private var frames: [String: (name: String, frame: Rect)] = [:]

    /// Applies one update.
    mutating func apply(_ update: KeyboardUpdate) {
        if update.isVisible {
            frames[update.keyboard.id] = (update.keyboard.name, update.endFrame)
        } else {
            frames.removeValue(forKey: update.keyboard.id)
        }
    }

    /// Applies an intermediate frame: the keyboard is where it is now.
    mutating func apply(_ progress: KeyboardProgress) {
        frames[progress.keyboard.id] = (progress.keyboard.name, progress.frame)
    }

    /// Forgets every keyboard (the backend stopped).
    mutating func removeAll() { frames.removeAll() }

    /// The visible keyboards, ordered by id.
    var visible: [(name: String, frame: Rect)] {
        frames.keys.sorted().compactMap { frames[$0] }
    }

    /// The visible keyboard that covers most of the window's bottom (global coordinates); nil
    /// when none covers it.
    func coveringBottom(ofWindow window: Rect) -> Rect? {
        let insets = visible.map {
            (frame: $0.frame, bottom: WindowGeometry.insets(for: $0.frame, inWindow: window).bottom)
        }
        return insets.filter { $0.bottom > 0 }.max { $0.bottom < $1.bottom }?.frame
    }

    /// The inset the window at `window` (global coordinates) keeps free at its bottom.
    func bottomInset(forWindow window: Rect) -> Int {
        WindowGeometry.insets(for: visible.map(\.frame), inWindow: window).bottom
    }
}
