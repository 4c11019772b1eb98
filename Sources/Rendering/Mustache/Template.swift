/// A parsed Mustache template: parse once (errors surface at start-up), render many times, never throws.
public struct Template: Sendable {
    indirect enum Node: Sendable {
        case text(String)
        case variable(name: String, escaped: Bool)
        case section(name: String, inverted: Bool, children: [Node])
        /// `indentation` is the whitespace before a standalone partial tag; it prefixes each partial line.
        case partial(name: String, indentation: String)
    }

    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public let message: String
        public let offset: Int
        public var description: String { "\(message) at byte \(offset)" }
    }

    let nodes: [Node]

    public init(_ source: String) throws(ParseError) {
        var parser = TemplateParser(source: Array(source.utf8))
        nodes = try parser.parse()
    }
}
