import Foundation

/// The event-stream format as the server writes it: `id:` and `data:` lines, `:` comments (keepalives), a blank
/// line ends an event. Bytes may arrive split anywhere; `feed` returns the events completed so far.
///
/// Bounded: a line longer than `maximumLineBytes` or an event whose data passes
/// `maximumEventBytes` sets `overflow`, drops what was held and ignores the rest; the owner closes the connection
/// and reconnects. Each byte is scanned once: a partial line is remembered, not re-read on the next chunk.
public struct SSEParser: Sendable {
    /// Why a stream was given up.
    public enum Overflow: Error, Equatable, Sendable {
        /// A line longer than `maximumLineBytes`.
        case line
        /// `data:` lines adding up to more than `maximumEventBytes` before a blank line.
        case event
    }

    /// 64 KiB: the server's events are one `data:` line of a few hundred bytes (a queue event carries no queue).
    public static let maximumLineBytes = 64 * 1024
    /// 256 KiB of data in one event, the lines' line feeds included.
    public static let maximumEventBytes = 256 * 1024
    /// An id goes back as the `Last-Event-ID` header: the server's are decimal numbers; longer ones are ignored.
    public static let maximumIdBytes = 256

    /// Unconsumed bytes: at most one partial line between calls.
    private var buffer: [UInt8] = []
    /// How much of `buffer` was already scanned for a line end.
    private var scanned = 0
    /// The last line ended in CR: an LF right after it belongs to that line end.
    private var skipsLineFeed = false
    /// The current event's `id:` ("" clears the last id, as in the SSE standard).
    private var id: String?
    private var data: [UInt8] = []
    private var hasData = false
    /// The last `id:` seen: sent back as `Last-Event-ID` when reconnecting.
    public private(set) var lastEventId: String?
    /// Set once a limit was passed; the parser then holds nothing and returns no more events.
    public private(set) var overflow: Overflow?

    public init() {}

    /// A fresh parser for a new connection that still remembers the last id it saw.
    init(resumingAfter lastEventId: String?) {
        self.lastEventId = lastEventId.flatMap { Self.acceptsId(Array($0.utf8)) ? $0 : nil }
    }

    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [PartyEvent] {
        guard overflow == nil else { return [] }
        buffer.append(contentsOf: bytes)
        var events: [PartyEvent] = []
        var lineStart = 0
        var index = scanned
        while index < buffer.count {
            let byte = buffer[index]
            if skipsLineFeed {
                skipsLineFeed = false
                if byte == 10 { index += 1; lineStart = index; continue }
            }
            // SSE: CRLF, LF and CR each end a line.
            if byte == 10 || byte == 13 {
                guard index - lineStart <= Self.maximumLineBytes else { give(up: .line); return events }
                if let event = process(buffer[lineStart..<index]) { events.append(event) }
                if overflow != nil { return events }
                skipsLineFeed = byte == 13
                lineStart = index + 1
            }
            index += 1
        }
        buffer.removeSubrange(..<lineStart)
        scanned = buffer.count
        if buffer.count > Self.maximumLineBytes { give(up: .line) }
        return events
    }

    private mutating func give(up reason: Overflow) {
        overflow = reason
        buffer = []
        data = []
        scanned = 0
    }

    private mutating func process(_ line: ArraySlice<UInt8>) -> PartyEvent? {
        if line.isEmpty { return dispatch() }
        if line.first == UInt8(ascii: ":") { return nil }
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
        let field = line[..<colon]
        var value = colon < line.endIndex ? line[(colon + 1)...] : []
        if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        if field.elementsEqual("data".utf8) {
            guard data.count + value.count + (hasData ? 1 : 0) <= Self.maximumEventBytes else { give(up: .event); return nil }
            if hasData { data.append(10) }
            data += value
            hasData = true
        } else if field.elementsEqual("id".utf8), Self.acceptsId(value) {
            id = String(decoding: value, as: UTF8.self)
        }
        return nil
    }

    /// SSE ignores an id holding NUL; we also ignore one a header cannot carry as it is (control characters,
    /// non-ASCII, over `maximumIdBytes`), so the previous id stays.
    static func acceptsId(_ value: some Collection<UInt8>) -> Bool {
        value.count <= maximumIdBytes && HeaderValue.isSafe(value)
    }

    private mutating func dispatch() -> PartyEvent? {
        defer { data = []; hasData = false; id = nil }
        if let id { lastEventId = id.isEmpty ? nil : id }
        guard hasData, let object = try? JSONSerialization.jsonObject(with: Data(data)) as? [String: Any],
              let type = object["type"] as? String else { return nil }
        // SPEC: payload values are strings; anything else is ignored as the other clients do.
        let payload = (object["payload"] as? [String: Any] ?? [:]).compactMapValues { $0 as? String }
        return PartyEvent(id: id.flatMap { $0.isEmpty ? nil : $0 }, type: type, payload: payload)
    }
}
