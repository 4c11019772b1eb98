extension Template {
    /// Renders with `partials` looked up by name at render time (a missing partial renders as nothing).
    public func render(_ data: MustacheValue, partials: [String: Template] = [:]) -> String {
        var renderer = Renderer(partials: partials)
        renderer.render(nodes, stack: [data], indentation: "")
        return renderer.output
    }
}

/// HTML escaping for `{{name}}`: & < > " and ' (the last so values are safe in single-quoted attributes too).
public func escapeHTML(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) else { return text }
    var result = ""
    result.reserveCapacity(text.utf8.count + 16)
    for character in text.unicodeScalars {
        switch character {
        case "&": result += "&amp;"
        case "<": result += "&lt;"
        case ">": result += "&gt;"
        case "\"": result += "&quot;"
        case "'": result += "&#39;"
        default: result.unicodeScalars.append(character)
        }
    }
    return result
}

private struct Renderer {
    /// Nested partials deeper than this render nothing, so a self-including partial cannot recurse forever.
    static let maxPartialDepth = 64
    let partials: [String: Template]
    var output = ""
    var atLineStart = true
    var partialDepth = 0

    init(partials: [String: Template]) { self.partials = partials }

    mutating func render(_ nodes: [Template.Node], stack: [MustacheValue], indentation: String) {
        for node in nodes {
            switch node {
            case .text(let text):
                emitTemplateText(text, indentation: indentation)
            case let .variable(name, escaped):
                let value = lookup(name, in: stack).text
                if atLineStart { output += indentation }
                output += escaped ? escapeHTML(value) : value
                atLineStart = false
            case let .section(name, inverted, children):
                let value = lookup(name, in: stack)
                if inverted {
                    if value.isFalsey { render(children, stack: stack, indentation: indentation) }
                } else if case .list(let items) = value {
                    for item in items { render(children, stack: stack + [item], indentation: indentation) }
                } else if !value.isFalsey {
                    render(children, stack: stack + [value], indentation: indentation)
                }
            case let .partial(name, partialIndentation):
                guard let template = partials[name], partialDepth < Self.maxPartialDepth else { continue }
                partialDepth += 1
                render(template.nodes, stack: stack, indentation: indentation + partialIndentation)
                partialDepth -= 1
            }
        }
    }

    /// Template text; with an indentation (standalone partial), every template line is prefixed by it.
    private mutating func emitTemplateText(_ text: String, indentation: String) {
        guard !indentation.isEmpty else {
            output += text
            if let last = text.utf8.last { atLineStart = last == 0x0A }
            return
        }
        for character in text {
            if atLineStart { output += indentation }
            output.append(character)
            atLineStart = character == "\n" || character == "\r\n"
        }
    }

    private func lookup(_ name: String, in stack: [MustacheValue]) -> MustacheValue {
        if name == "." { return stack.last ?? .null }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard let first = parts.first else { return .null }
        var value: MustacheValue?
        for context in stack.reversed() {
            if let found = context[first] { value = found; break }
        }
        guard var current = value else { return .null }
        for part in parts.dropFirst() {
            guard let next = current[part] else { return .null }
            current = next
        }
        return current
    }
}
