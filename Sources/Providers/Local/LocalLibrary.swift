import Foundation
import PartyCore

/// The host's music folder: scanned recursively, tags read with TagLib, rescanned when a folder changes.
/// `@unchecked Sendable`: `lock` guards the snapshot and serializes TagLib, whose string buffer is global.
public final class LocalLibrary: @unchecked Sendable {
    static let audioExtensions: Set<String> = ["mp3", "ogg", "oga", "opus", "flac", "wav", "m4a", "aac", "webm"]
    static let coverNames = ["cover.jpg", "cover.jpeg", "cover.png", "folder.jpg", "folder.png", "front.jpg"]
    /// Folder modification times are checked at most this often.
    static let staleAfter: TimeInterval = 10

    public struct Item: Sendable {
        public let track: Track
        public let path: String
        public let coverPath: String?
        public let folder: String
    }

    public let root: URL
    /// Guards the snapshot below; scans run on `scanQueue` (off the HTTP threads), which also serializes
    /// TagLib, whose string buffer is global.
    private let lock = NSLock()
    private let scanQueue = DispatchQueue(label: "musicvoting.library-scan")
    private var items: [String: Item] = [:]
    private var order: [String] = []
    private var scannedFolders: [LibraryWalk.Folder] = []
    private var checkedAt = Date.distantPast
    private var checking = false

    public init(root: URL) {
        self.root = root.standardizedFileURL
        rescan()
    }

    /// Every track, in path order. A changed folder is noticed in the background within `staleAfter`.
    public var tracks: [Track] {
        lock.lock()
        defer { lock.unlock() }
        refreshLocked()
        return order.compactMap { items[$0]?.track }
    }

    public func item(id: String) -> Item? {
        lock.lock()
        defer { lock.unlock() }
        refreshLocked()
        return items[id]
    }

    /// Rescans now (start-up and the host's rescan), waiting for the result.
    public func rescan() {
        scanQueue.sync { install(Self.scan(LibraryWalk(root: root.path))) }
    }

    /// Each folder with its tracks: the library's playlists.
    public var folders: [(name: String, tracks: [Track])] {
        let all = tracks
        lock.lock()
        defer { lock.unlock() }
        var names: [String] = []
        var byFolder: [String: [Track]] = [:]
        for track in all {
            guard let folder = items[track.id]?.folder, !folder.isEmpty else { continue }
            if byFolder[folder] == nil { names.append(folder) }
            byFolder[folder, default: []].append(track)
        }
        return names.map { ($0, byFolder[$0] ?? []) }
    }

    private func refreshLocked() {
        let now = Date()
        guard !checking, now.timeIntervalSince(checkedAt) >= Self.staleAfter else { return }
        checking = true
        scanQueue.async { [self] in
            let walk = LibraryWalk(root: root.path)
            let changed = lock.withLock { walk.folders != scannedFolders }
            if changed { install(Self.scan(walk)) }
            lock.withLock {
                checking = false
                checkedAt = Date()
            }
        }
    }

    private func install(_ scanned: (items: [String: Item], folders: [LibraryWalk.Folder])) {
        lock.withLock {
            items = scanned.items
            order = scanned.items.values.sorted { $0.path < $1.path }.map(\.track.id)
            scannedFolders = scanned.folders
            checkedAt = Date()
        }
    }

    /// Reads the tags of every audio file the walk found. Runs on `scanQueue` only.
    private static func scan(_ walk: LibraryWalk) -> (items: [String: Item], folders: [LibraryWalk.Folder]) {
        _ = TagFile.unicode
        var found: [String: Item] = [:]
        for folder in walk.folders {
            let cover = coverNames.lazy.compactMap { wanted in folder.files.first { $0.name.lowercased() == wanted } }.first?.realPath
            for file in folder.files where audioExtensions.contains((file.name as NSString).pathExtension.lowercased()) {
                let relative = folder.relative.isEmpty ? file.name : folder.relative + "/" + file.name
                let id = identifier(for: relative)
                var tags = TagFile(path: file.realPath)?.tags
                if file.name.lowercased().hasSuffix(".wav"), let info = RiffInfo(path: file.realPath) {
                    // TagLib's C API reads a WAV's ID3 tag only; its RIFF INFO fills what that left empty.
                    var merged = tags ?? TagFile.Tags(title: "", artist: "", album: "", durationMs: 0)
                    if merged.title.isEmpty { merged.title = info.title }
                    if merged.artist.isEmpty { merged.artist = info.artist }
                    if merged.album.isEmpty { merged.album = info.album }
                    tags = merged
                }
                let fallbackTitle = (file.name as NSString).deletingPathExtension
                let track = Track(
                    id: id, uri: LocalProvider.uriPrefix + id,
                    name: tags.map { $0.title.isEmpty ? fallbackTitle : $0.title } ?? fallbackTitle,
                    // No artist tag: no artist (each page says "unknown" in its own language).
                    artists: tags.map { $0.artist.isEmpty ? [] : [$0.artist] } ?? [],
                    album: tags.map { $0.album.isEmpty ? folder.relative : $0.album } ?? folder.relative,
                    imageURL: cover == nil ? nil : "/local/cover/\(id)", durationMs: tags?.durationMs ?? 0)
                found[id] = Item(track: track, path: file.realPath, coverPath: cover, folder: folder.relative)
            }
        }
        return (found, walk.folders)
    }

    /// Whether `text` has the shape `identifier(for:)` gives: checked before any look-up of a request's id.
    public static func isIdentifier(_ text: String) -> Bool {
        text.utf8.count == 16 && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    /// A stable id from the path inside the library (FNV-1a, 64 bit, hex): survives restarts and rescans.
    static func identifier(for relativePath: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in relativePath.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
