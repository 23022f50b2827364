import Testing

/// Every test that starts a compositor, one at a time: each brings its own sway (or Weston) and
/// keyboards, and two cores are shared with the other backends' tests.
@Suite("Wayland integration", .serialized)
enum WaylandIntegration {}
