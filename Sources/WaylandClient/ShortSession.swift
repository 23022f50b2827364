/// A compositor session that a backend also opens for a moment, to tell whether it can run or
/// what it sees, and destroys right after.
package protocol ShortSession: AnyObject {
    /// Connects to the compositor at `name` (nil: `WAYLAND_DISPLAY`).
    init(display name: String?) throws(WaylandError)
    /// Releases every proxy and the connection.
    func destroy()
}

extension ShortSession {
    /// What `body` makes of a session opened on `display`, destroyed once it returns; what
    /// `failed` makes of the error when none opens.
    package static func withSession<Answer>(
        display: String?, failed: (WaylandError) -> Answer, body: (Self) -> Answer
    ) -> Answer {
        let session: Self
        do throws(WaylandError) {
            session = try Self(display: display)
        } catch {
            return failed(error)
        }
        defer { session.destroy() }
        return body(session)
    }
}
