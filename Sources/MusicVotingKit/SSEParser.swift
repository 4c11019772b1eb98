import Foundation

/// The event-stream format as the server writes it: `id:` and `data:` lines, `:` comments (keepalives), a blank
/// line ends an event. Bytes may arrive split anywhere; `feed` returns the events completed so far.
public struct SSEParser: Sendable {
    private var buffer: [UInt8] = []
    private var id: String?
    private var data: [String] = []
    /// The last `id:` seen: sent back as `Last-Event-ID` when reconnecting.
    public private(set) var lastEventId: String?

    public init() {}

    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [PartyEvent] {
        buffer.append(contentsOf: bytes)
        var events: [PartyEvent] = []
        while let newline = buffer.firstIndex(of: 10) {
            var line = Array(buffer[..<newline])
            buffer.removeSubrange(...newline)
            if line.last == 13 { line.removeLast() }
            if line.isEmpty {
                if let event = dispatch() { events.append(event) }
                continue
            }
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix(":") { continue }
            let field = text.prefix { $0 != ":" }
            var value = text.dropFirst(field.count + 1)
            if value.hasPrefix(" ") { value = value.dropFirst() }
            switch field {
            case "id": id = String(value)
            case "data": data.append(String(value))
            default: break
            }
        }
        return events
    }

    private mutating func dispatch() -> PartyEvent? {
        defer { data = []; id = nil }
        if let id { lastEventId = id }
        guard !data.isEmpty, let object = try? JSONSerialization.jsonObject(with: Data(data.joined(separator: "\n").utf8)) as? [String: Any],
              let type = object["type"] as? String else { return nil }
        // SPEC: payload values are strings; anything else is ignored as the other clients do.
        let payload = (object["payload"] as? [String: Any] ?? [:]).compactMapValues { $0 as? String }
        return PartyEvent(id: id, type: type, payload: payload)
    }
}
