import Foundation

/// Synthesizes each demo song as a mono 8-bit WAV whose length is exactly the catalog duration.
public enum DemoAudio {
    static let sampleRate = 16_000

    /// The WAV bytes of catalog song `number` (1-based), or nil when there is no such song.
    public static func wav(number: Int) -> [UInt8]? {
        guard let song = DemoCatalog.song(number: number) else { return nil }
        return cache.withLock { cached in
            if let bytes = cached[number] { return bytes }
            let bytes = render(song)
            cached[number] = bytes
            return bytes
        }
    }

    private static let cache = LockedCache()

    static func render(_ song: DemoCatalog.Song) -> [UInt8] {
        let count = song.seconds * sampleRate
        let beat = 60.0 / Double(song.beatsPerMinute)
        let scale = [0, 2, 4, 7, 9, 12, 9, 7] // a pentatonic figure that loops
        var samples = [UInt8](repeating: 128, count: count)
        for index in 0..<count {
            let time = Double(index) / Double(sampleRate)
            let step = Int(time / beat)
            let inBeat = time - Double(step) * beat
            let melody = frequency(song.rootNote + 12 + scale[(step + song.rootNote) % scale.count])
            let bass = frequency(song.rootNote - 12 + (step / 8 % 2 == 0 ? 0 : 5))
            let envelope = exp(-3.2 * inBeat / beat)
            let fade = min(1, time / 0.5, (Double(song.seconds) - time) / 1.0)
            let value = (0.45 * envelope * sin(2 * .pi * melody * time) + 0.25 * sin(2 * .pi * bass * time)) * fade
            samples[index] = UInt8(clamping: Int(128 + 127 * value))
        }
        return header(dataSize: count) + samples
    }

    private static func frequency(_ midiNote: Int) -> Double {
        440 * pow(2, Double(midiNote - 69) / 12)
    }

    private static func header(dataSize: Int) -> [UInt8] {
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { (byte: Int) -> UInt8 in UInt8((value >> (8 * byte)) & 0xFF) } }
        func le16(_ value: Int) -> [UInt8] { (0..<2).map { (byte: Int) -> UInt8 in UInt8((value >> (8 * byte)) & 0xFF) } }
        let parts: [[UInt8]] = [Array("RIFF".utf8), le32(36 + dataSize), Array("WAVE".utf8), Array("fmt ".utf8), le32(16), le16(1),
                                le16(1), le32(sampleRate), le32(sampleRate), le16(1), le16(8), Array("data".utf8), le32(dataSize)]
        return parts.flatMap { $0 }
    }
}

/// Rendered songs, shared by the HTTP threads; NSLock serializes every access.
private final class LockedCache: @unchecked Sendable {
    private let lock = NSLock()
    private var songs: [Int: [UInt8]] = [:]

    func withLock<T>(_ body: (inout [Int: [UInt8]]) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&songs)
    }
}
