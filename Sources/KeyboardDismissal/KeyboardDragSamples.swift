import KeyboardAdapterCore

/// The finger's recent vertical path, for its speed at release: enough samples to reach
/// `interval` back from the newest, and no more.
struct KeyboardDragSamples {
    private var samples: [(y: Double, time: Double)] = []
    let interval: Double

    init(y: Double, time: Double, interval: Double) {
        self.interval = interval
        samples = [(y, time)]
    }

    /// Adds a sample and forgets those older than the newest one at least `interval` old.
    mutating func add(y: Double, time: Double) {
        samples.append((y, time))
        while samples.count > 2, samples[1].time <= time - interval { samples.removeFirst() }
    }

    /// Pixels per second downwards (negative upwards), from the newest sample at least
    /// `interval` older than the last one (the oldest kept, when none is) to the last one; 0 when
    /// no time passed between them.
    var velocity: Double {
        guard let first = samples.first, let last = samples.last, last.time > first.time else { return 0 }
        return (last.y - first.y) / (last.time - first.time)
    }
}
