import Foundation

/// Title, artist and album from a WAV file's RIFF `LIST/INFO` chunk (`INAM`, `IART`, `IPRD`): where Windows and
/// most editors put them, and which TagLib's C API does not expose for WAV. Reads chunk headers only (the audio
/// is skipped), with every size bounded: a broken or hostile file yields nothing, never a crash.
struct RiffInfo: Equatable {
    var title = ""
    var artist = ""
    var album = ""

    static let maximumChunks = 64
    static let maximumListBytes = 64 * 1024

    /// Nil when the file is not a RIFF/WAVE file or has no INFO list.
    init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        func read(_ count: Int, at offset: Int) -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: count)
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
            return got == count ? bytes : nil
        }
        guard let header = read(12, at: 0), header[0..<4].elementsEqual("RIFF".utf8), header[8..<12].elementsEqual("WAVE".utf8) else {
            return nil
        }
        var offset = 12
        for _ in 0..<Self.maximumChunks {
            guard let chunk = read(8, at: offset) else { return nil }
            let size = Int(Self.littleEndian(chunk[4..<8]))
            if chunk[0..<4].elementsEqual("LIST".utf8), size >= 4, size <= Self.maximumListBytes,
               let list = read(size, at: offset + 8), list[0..<4].elementsEqual("INFO".utf8) {
                self.init(list: list[4...])
                if self == RiffInfo() { return nil }
                return
            }
            offset += 8 + size + (size & 1)
        }
        return nil
    }

    init(title: String = "", artist: String = "", album: String = "") {
        self.title = title
        self.artist = artist
        self.album = album
    }

    /// The INFO list's sub-chunks: four-letter id, size, NUL-terminated text padded to an even length.
    private init(list: ArraySlice<UInt8>) {
        var index = list.startIndex
        while index + 8 <= list.endIndex {
            let id = String(decoding: list[index..<index + 4], as: UTF8.self)
            let size = Int(Self.littleEndian(list[index + 4..<index + 8]))
            let start = index + 8
            guard size <= list.endIndex - start else { break }
            let text = Self.text(list[start..<start + size])
            switch id {
            case "INAM": title = text
            case "IART": artist = text
            case "IPRD": album = text
            default: break
            }
            index = start + size + (size & 1)
        }
    }

    private static func littleEndian(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// UTF-8 when it is valid, else Windows' Latin-1 (what older tools write); up to the first NUL, trimmed.
    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        let value = bytes.prefix { $0 != 0 }.prefix(1024)
        let decoded = String(validating: value, as: UTF8.self) ?? String(value.map { Character(Unicode.Scalar($0)) })
        return decoded.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
