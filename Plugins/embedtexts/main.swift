import Foundation

// embedtexts OUTPUT Type.constant=FILE ...: writes OUTPUT, a Swift file that declares each
// constant, in an extension of its type, as a string literal holding FILE's text (UTF-8). The
// EmbeddedTexts plugin runs it at build time.

/// `text` as one Swift string literal: quotes, backslashes and every control character escaped.
func literal(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        case "\t": result += "\\t"
        case "\r": result += "\\r"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F:
            result += "\\u{\(String(scalar.value, radix: 16))}"
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result + "\""
}

/// Ends the tool with `message`, which the build shows.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("embedtexts: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments.dropFirst()
guard let output = arguments.first, arguments.count > 1 else { fail("usage: embedtexts OUTPUT Type.constant=FILE ...") }
var extensions: [(type: String, members: [String])] = []
for argument in arguments.dropFirst() {
    guard let equals = argument.firstIndex(of: "="), let dot = argument[..<equals].firstIndex(of: ".") else {
        fail("\(argument) is not Type.constant=FILE")
    }
    let type = String(argument[..<dot])
    let constant = String(argument[argument.index(after: dot)..<equals])
    let file = String(argument[argument.index(after: equals)...])
    guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
        fail("cannot read \(file) as UTF-8 text")
    }
    let member =
        "    /// The text of \(URL(fileURLWithPath: file).lastPathComponent).\n    static let \(constant) = \(literal(text))\n"
    if let index = extensions.firstIndex(where: { $0.type == type }) {
        extensions[index].members.append(member)
    } else {
        extensions.append((type, [member]))
    }
}
var source = "// Written at build time by embedtexts (the EmbeddedTexts plugin) from the files named here.\n"
for (type, members) in extensions {
    source += "\nextension \(type) {\n" + members.joined(separator: "\n") + "}\n"
}
do {
    try source.write(toFile: output, atomically: true, encoding: .utf8)
} catch {
    fail("cannot write \(output): \(error)")
}
