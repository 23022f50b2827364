import SystemdBus

/// What a message says about a boolean property, read with its types checked and its size
/// bounded before anything is believed.
enum PropertyReading: Equatable {
    /// The property's new value.
    case value(Bool)
    /// The property is there with a type other than `b` (its signature).
    case wrongType(String)
    /// The property changed without its value (listed as invalidated): read it again.
    case invalidated
    /// The message says nothing about it.
    case absent
    /// The message is not what its kind promises.
    case malformed(String)

    /// At most this many entries of a PropertiesChanged dictionary or invalidated list are read:
    /// a peer that sends thousands costs nothing more.
    static let entryLimit = 64

    /// Reads a `PropertiesChanged(s interface, a{sv} changed, as invalidated)` signal.
    static func changed(_ message: BusMessage, interface: String, property: String) -> PropertyReading {
        guard message.hasSignature("sa{sv}as") else {
            return .malformed("PropertiesChanged without signature sa{sv}as")
        }
        do {
            guard try message.readString() == interface else { return .absent }
            var found = PropertyReading.absent
            guard try message.enter("a", "{sv}") else { return .malformed("no changed properties") }
            var entries = 0
            while entries < entryLimit, try message.enter("e", "sv") {
                entries += 1
                let name = try message.readString()
                if name == property {
                    found = try variantBool(message)
                } else {
                    try message.skip("v")
                }
                try message.exit()
            }
            if entries == entryLimit {
                // Unread entries after the limit are skipped whole; a Visible among them is lost,
                // which a re-read (as for an invalidated property) repairs.
                try message.exit()
                return found == .absent ? .invalidated : found
            }
            try message.exit()
            if found != .absent { return found }
            guard try message.enter("a", "s") else { return .absent }
            for _ in 0..<entryLimit {
                guard message.peek() != nil else { break }
                if try message.readString() == property { return .invalidated }
            }
            return .absent
        } catch {
            return .malformed("PropertiesChanged could not be read (\(error))")
        }
    }

    /// Reads the reply of `Properties.Get`: one variant.
    static func reply(_ message: BusMessage) -> PropertyReading {
        guard message.hasSignature("v") else { return .malformed("a Get reply without signature v") }
        do {
            return try variantBool(message)
        } catch {
            return .malformed("a Get reply could not be read (\(error))")
        }
    }

    /// A variant holding a boolean, or the type it holds instead (skipped).
    private static func variantBool(_ message: BusMessage) throws(BusFailure) -> PropertyReading {
        guard let next = message.peek(), next.type == "v", let contents = next.contents else {
            return .malformed("not a variant")
        }
        guard contents == "b" else {
            try message.skip("v")
            return .wrongType(contents)
        }
        guard try message.enter("v", "b") else { return .malformed("an empty variant") }
        let value = try message.readBool()
        try message.exit()
        return .value(value)
    }
}
