import KeyboardBackendInterface
import SystemdBus

/// Where a keyboard's service lives on the session bus and how it is asked to show and hide:
/// everything that differs between keyboard families.
struct ServiceInterface: Sendable, Hashable {
    /// The service's name for people (`onboard`).
    var name: String
    /// The name geometry gives its keyboards (`onboard`).
    var keyboardName: String
    /// Whether the keyboards bear the name of the program that owns the bus name rather than
    /// `keyboardName`: `sm.puri.OSK0` is served by squeekboard, phosh-osk-stub, Stevia
    /// (phosh-osk-stevia) and any keyboard that speaks it.
    var namesKeyboardByOwner = false
    /// The well-known bus name (`org.onboard.Onboard`).
    var busName: String
    /// The object that has the keyboard interface.
    var objectPath: String
    /// The keyboard interface.
    var interface: String
    /// Its boolean property that says whether the keyboard is visible.
    var visibleProperty: String
    /// The output edge the keyboard always docks at, nil when it floats or the user chooses.
    var dockedEdge: Edge? = nil
    /// A signal of the keyboard interface, with no arguments, that says the visible property
    /// changed (KWin's `visibleChanged`), for services that send no PropertiesChanged.
    var changeSignal: String? = nil
    /// Whether the watch loads the package's KWin script into the name's owner (KWin's virtual
    /// keyboard), which tells where the keyboard is on KWin 6.
    var loadsKWinCompanion = false
    /// Whether a show first asks KWin's `willShowOnActive()`, and fails with the reason when KWin
    /// would set its keyboard active without showing it (its mode).
    var asksWillShow = false
    /// How the keyboard is asked to show (`true`) or hide (`false`).
    var request: @Sendable (Bool) -> ServiceRequest

    static func == (a: Self, b: Self) -> Bool { a.busName == b.busName && a.objectPath == b.objectPath }
    func hash(into hasher: inout Hasher) { hasher.combine(busName) }

    /// The call that shows or hides the keyboard.
    func call(visible: Bool) -> BusCall {
        switch request(visible) {
        case .method(let member, let arguments):
            return BusCall(
                destination: busName, path: objectPath, interface: interface, member: member, arguments: arguments)
        case .setBool(let property, let value):
            return BusCall(
                destination: busName, path: objectPath, interface: "org.freedesktop.DBus.Properties", member: "Set",
                arguments: [.string(interface), .string(property), .boolVariant(value)])
        }
    }

    /// `Properties.Get` of the visible property.
    var getVisible: BusCall {
        .getProperty(destination: busName, path: objectPath, interface: interface, property: visibleProperty)
    }

    /// The rule for the bus's NameOwnerChanged signals about this name: the keyboard starting and
    /// ending (a killed keyboard sends nothing else).
    var ownerRule: String {
        "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',"
            + "member='NameOwnerChanged',arg0='\(busName)'"
    }

    /// The rule for the keyboard's own change signal, when it has one.
    var changeRule: String? {
        changeSignal.map {
            "type='signal',sender='\(busName)',path='\(objectPath)',interface='\(interface)',member='\($0)'"
        }
    }

    /// The rule for the keyboard's own PropertiesChanged signals. A well-known name as the sender
    /// keeps matching after the keyboard restarts under a new unique name.
    var propertiesRule: String {
        "type='signal',sender='\(busName)',path='\(objectPath)',interface='org.freedesktop.DBus.Properties',"
            + "member='PropertiesChanged',arg0='\(interface)'"
    }
}

/// How a keyboard is asked to show or hide.
enum ServiceRequest: Sendable, Hashable {
    /// A method of the keyboard interface with its arguments (onboard's `Show`, squeekboard's
    /// `SetVisible(b)`, KWin's `forceActivate`).
    case method(String, [BusArgument])
    /// A boolean property of the keyboard interface set through `org.freedesktop.DBus.Properties`
    /// (KWin's `active`).
    case setBool(String, Bool)
}
