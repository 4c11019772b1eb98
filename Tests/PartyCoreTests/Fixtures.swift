import Foundation
import PartyCore


/// Always answers the same values, to force PIN collisions.
struct ConstantGenerator: RandomNumberGenerator {
    let value: UInt64
    mutating func next() -> UInt64 { value }
}

let epoch = Date(timeIntervalSince1970: 1_800_000_000)

func track(_ number: Int, name: String? = nil, artist: String = "Artist") -> Track {
    Track(id: "\(number)", uri: "demo:track:\(number)", name: name ?? "Song \(number)", artists: [artist],
          album: "Album", imageURL: nil, durationMs: 30_000)
}

func entry(_ id: Int64, track number: Int, at seconds: Double = 0, likes: Int = 0, autofilled: Bool = false) -> QueueEntry {
    QueueEntry(id: id, track: track(number), addedAt: epoch.addingTimeInterval(seconds), addedBy: "device",
               autofilled: autofilled, likeCount: likes)
}
