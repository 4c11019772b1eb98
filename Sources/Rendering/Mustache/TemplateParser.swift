/// Scans a template once, applying delimiter changes as it goes and dropping standalone tag lines.
struct TemplateParser {
    private let source: [UInt8]
    private var index = 0
    private var open: [UInt8] = Array("{{".utf8)
    private var close: [UInt8] = Array("}}".utf8)

    init(source: [UInt8]) { self.source = source }

    private struct Frame {
        var name: String
        var inverted: Bool
        var nodes: [Template.Node] = []
        var start: Int
    }

    mutating func parse() throws(Template.ParseError) -> [Template.Node] {
        var stack = [Frame(name: "", inverted: false, start: 0)]
        var textStart = index
        while index < source.count {
            guard matches(open, at: index) else { index += 1; continue }
            let tagStart = index
            var cursor = index + open.count
            let kind = cursor < source.count ? source[cursor] : 0
            let sigils: Set<UInt8> = Set("#^/!>&{=".utf8)
            if sigils.contains(kind) { cursor += 1 }
            let closing: [UInt8] = kind == UInt8(ascii: "{") ? [UInt8(ascii: "}")] + close
                : kind == UInt8(ascii: "=") ? [UInt8(ascii: "=")] + close : close
            guard let contentEnd = find(closing, from: cursor) else {
                throw Template.ParseError(message: "unclosed tag", offset: tagStart)
            }
            let content = String(decoding: source[cursor..<contentEnd], as: UTF8.self)
            let tagEnd = contentEnd + closing.count
            let name = content.trimmingWhitespace
            let standaloneKinds: Set<UInt8> = Set("#^/!>=".utf8)
            var text = String(decoding: source[textStart..<tagStart], as: UTF8.self)
            var indentation = ""
            index = tagEnd
            if standaloneKinds.contains(kind), let lineEnd = standaloneLineEnd(tagStart: tagStart, tagEnd: tagEnd) {
                let lineStart = self.lineStart(before: tagStart)
                indentation = String(decoding: source[lineStart..<tagStart], as: UTF8.self)
                text = String(decoding: source[textStart..<lineStart], as: UTF8.self)
                index = lineEnd
            }
            if !text.isEmpty { stack[stack.count - 1].nodes.append(.text(text)) }
            switch kind {
            case UInt8(ascii: "#"), UInt8(ascii: "^"):
                stack.append(Frame(name: name, inverted: kind == UInt8(ascii: "^"), start: tagStart))
            case UInt8(ascii: "/"):
                guard stack.count > 1, let frame = stack.last, frame.name == name else {
                    throw Template.ParseError(message: "unexpected closing tag \(name)", offset: tagStart)
                }
                stack.removeLast()
                stack[stack.count - 1].nodes.append(.section(name: name, inverted: frame.inverted, children: frame.nodes))
            case UInt8(ascii: "!"):
                break
            case UInt8(ascii: ">"):
                stack[stack.count - 1].nodes.append(.partial(name: name, indentation: indentation))
            case UInt8(ascii: "="):
                let parts = name.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard parts.count == 2 else { throw Template.ParseError(message: "bad delimiters", offset: tagStart) }
                open = Array(parts[0].utf8)
                close = Array(parts[1].utf8)
            case UInt8(ascii: "&"), UInt8(ascii: "{"):
                stack[stack.count - 1].nodes.append(.variable(name: name, escaped: false))
            default:
                stack[stack.count - 1].nodes.append(.variable(name: name, escaped: true))
            }
            textStart = index
        }
        if textStart < source.count {
            stack[stack.count - 1].nodes.append(.text(String(decoding: source[textStart...], as: UTF8.self)))
        }
        guard stack.count == 1 else {
            throw Template.ParseError(message: "unclosed section \(stack[stack.count - 1].name)", offset: stack[stack.count - 1].start)
        }
        return stack[0].nodes
    }

    private func matches(_ needle: [UInt8], at position: Int) -> Bool {
        guard position + needle.count <= source.count else { return false }
        for offset in 0..<needle.count where source[position + offset] != needle[offset] { return false }
        return true
    }

    private func find(_ needle: [UInt8], from start: Int) -> Int? {
        var position = start
        while position + needle.count <= source.count {
            if matches(needle, at: position) { return position }
            position += 1
        }
        return nil
    }

    private func lineStart(before position: Int) -> Int {
        var cursor = position
        while cursor > 0, source[cursor - 1] != 0x0A { cursor -= 1 }
        return cursor
    }

    /// When the tag is alone on its line (only spaces or tabs around it), where the next line starts.
    private func standaloneLineEnd(tagStart: Int, tagEnd: Int) -> Int? {
        let start = lineStart(before: tagStart)
        guard source[start..<tagStart].allSatisfy({ $0 == 0x20 || $0 == 0x09 }) else { return nil }
        var cursor = tagEnd
        while cursor < source.count, source[cursor] == 0x20 || source[cursor] == 0x09 { cursor += 1 }
        if cursor == source.count { return cursor }
        if source[cursor] == 0x0A { return cursor + 1 }
        if source[cursor] == 0x0D, cursor + 1 < source.count, source[cursor + 1] == 0x0A { return cursor + 2 }
        return nil
    }
}

extension String {
    var trimmingWhitespace: String {
        var view = Substring(self)
        while let first = view.first, first == " " || first == "\t" || first == "\n" || first == "\r" { view.removeFirst() }
        while let last = view.last, last == " " || last == "\t" || last == "\n" || last == "\r" { view.removeLast() }
        return String(view)
    }
}
