import KeyboardAdapterCore

@testable import X11Adapter

/// The window model on a fake server, fed the events a real server would send it: an event on a
/// window reaches the model once through the window's own selection and once more through the
/// root's when the root is the window's parent, the way ConfigureNotify comes twice for a top-level.
final class ModelWorld {
    let server: FakeWindowServer
    let model: WindowModel<FakeWindowServer>
    private let log: ObservationLog

    /// What the model delivered, in order.
    final class ObservationLog {
        var observations: [KeyboardObservation] = []
    }

    /// A model recognising keyboards by `rules`, judging them local for `app`, on a server with
    /// `layout`; started (on an empty screen) unless `started` is false.
    init(
        rules: KeyboardRules = .builtIn, app: AppIdentity = AppIdentity(), layout: FakeLayoutSource? = nil,
        started: Bool = true
    ) {
        let server = FakeWindowServer()
        let log = ObservationLog()
        server.layout = layout
        self.server = server
        self.log = log
        model = WindowModel(
            server: server, rules: rules, appIdentity: { app }, deliver: { log.observations.append($0) })
        if started { model.start() }
    }

    var root: WindowID { server.root }

    /// Delivers `event` as often as the model selected it on `window` and on `parents`.
    private func send(_ event: X11WindowEvent, on window: WindowID, parents: [WindowID]) {
        let own = server.selected.contains(window) ? 1 : 0
        let throughRoot = server.rootSelected ? parents.filter { $0 == root }.count : 0
        for _ in 0..<(own + throughRoot) { model.handle(event) }
    }

    func create(_ id: WindowID, in parent: WindowID = 1, _ geometry: X11Geometry, overrideRedirect: Bool = false) {
        server.addWindow(id, parent: parent, geometry: geometry, overrideRedirect: overrideRedirect)
        // CreateNotify goes to the parent's substructure only: the window has selected nothing yet.
        if parent == root, server.rootSelected {
            model.handle(.created(window: id, parent: parent, geometry: geometry, overrideRedirect: overrideRedirect))
        }
    }

    func reparent(_ id: WindowID, into parent: WindowID, x: Int32, y: Int32) {
        guard let old = server.windows[id]?.parent else { return }
        server.setParent(id, parent, x: x, y: y)
        send(.reparented(window: id, parent: parent, x: x, y: y), on: id, parents: [old, parent])
    }

    func configure(_ id: WindowID, _ geometry: X11Geometry) {
        guard let parent = server.windows[id]?.parent else { return }
        server.setGeometry(id, geometry)
        send(.configured(window: id, geometry: geometry, synthetic: false), on: id, parents: [parent])
    }

    func map(_ id: WindowID) {
        guard let parent = server.windows[id]?.parent else { return }
        server.setMapped(id, true)
        send(.mapped(id), on: id, parents: [parent])
    }

    func unmap(_ id: WindowID) {
        guard let parent = server.windows[id]?.parent else { return }
        server.setMapped(id, false)
        send(.unmapped(id, synthetic: false), on: id, parents: [parent])
    }

    /// Destroys the window and everything inside it, the innermost first, as a server does.
    func destroy(_ id: WindowID) {
        guard let parent = server.windows[id]?.parent else { return }
        for child in server.children[id] ?? [] { destroy(child) }
        server.removeWindow(id)
        send(.destroyed(id), on: id, parents: [parent])
    }

    /// Changes a property and sends its PropertyNotify to a window that asked for it.
    func setProperty(_ id: WindowID, _ name: String, _ property: XProperty?) {
        server.setProperty(id, name, property)
        if id == root ? server.rootSelected : server.selected.contains(id) {
            model.handle(.propertyChanged(window: id, atom: server.atom(name)))
        }
    }

    func setValues(_ id: WindowID, _ name: String, _ values: [UInt], type: String = "CARDINAL") {
        setProperty(id, name, XProperty(type: server.atom(type), format: 32, bytes: [], values: values))
    }

    func setText(_ id: WindowID, _ name: String, _ text: String, type: String = "UTF8_STRING") {
        setProperty(id, name, XProperty(type: server.atom(type), format: 8, bytes: Array(text.utf8), values: []))
    }

    /// Flushes the model and returns what it delivered since the last call, with times set to 0
    /// (the clock is the machine's).
    @discardableResult
    func flush() -> [KeyboardObservation] {
        model.flushObservations()
        return take()
    }

    /// The focus each observation `take()` returned last carried (kept apart so that the
    /// observations compare with plain expectations).
    private(set) var focuses: [FocusedTopLevel?] = []

    /// What the model delivered since the last call, with times set to 0 and the focus moved to
    /// ``focuses``.
    func take() -> [KeyboardObservation] {
        defer { log.observations = [] }
        focuses = log.observations.map(\.focus)
        return log.observations.map {
            var observation = $0
            observation.time = 0
            observation.focus = nil
            return observation
        }
    }

    /// Gives the window a WM_CLASS before anyone looks, as a client does before mapping.
    func setClass(_ id: WindowID, _ instanceAndClass: String) {
        server.setText(id, "WM_CLASS", Array(instanceAndClass.utf8), type: "STRING")
    }

    /// An xvkbd window (WM_CLASS `xvkbd`/`XVkbd`) created on the root at `geometry`, not mapped.
    func createKeyboard(_ id: WindowID, _ geometry: X11Geometry) {
        create(id, geometry)
        setClass(id, "xvkbd\0XVkbd\0")
    }

    /// An xvkbd window created and mapped on the root at `geometry`.
    func showKeyboard(_ id: WindowID, _ geometry: X11Geometry) {
        createKeyboard(id, geometry)
        map(id)
    }
}

/// A geometry, briefly.
func geometry(_ x: Int32, _ y: Int32, _ width: Int32, _ height: Int32, border: Int32 = 0) -> X11Geometry {
    X11Geometry(x: x, y: y, width: width, height: height, border: border)
}
