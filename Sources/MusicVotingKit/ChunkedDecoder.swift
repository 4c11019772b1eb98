#if canImport(FoundationNetworking)
import Foundation

/// `Transfer-Encoding: chunked`: hex size line, that many bytes, CRLF; nil on bad input (the reader then drops
/// the connection). `finished` once the zero-size chunk arrived (trailers are not read).
struct ChunkedDecoder {
    private var buffer: [UInt8] = []
    private var remaining = 0
    private var needsLineEnd = false
    private(set) var finished = false

    mutating func feed(_ bytes: [UInt8]) -> [UInt8]? {
        guard !finished else { return [] }
        buffer += bytes
        var out: [UInt8] = []
        while true {
            if remaining > 0 {
                let take = min(remaining, buffer.count)
                out += buffer.prefix(take)
                buffer.removeFirst(take)
                remaining -= take
                if remaining > 0 { return out }
                needsLineEnd = true
            }
            if needsLineEnd {
                guard buffer.count >= 2 else { return out }
                buffer.removeFirst(2)
                needsLineEnd = false
            }
            guard let lineEnd = buffer.firstRange(of: [13, 10]) else { return buffer.count > 64 ? nil : out }
            let sizeText = String(decoding: buffer[..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0, size < 1 << 24 else { return nil }
            buffer.removeSubrange(..<lineEnd.upperBound)
            if size == 0 {
                finished = true
                return out
            }
            remaining = size
        }
    }
}
#endif
