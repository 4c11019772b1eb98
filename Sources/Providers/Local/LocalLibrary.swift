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
    private let lock = NSLock()
    private var items: [String: Item] = [:]
    private var order: [String] = []
    private var folderStamps: [String: Date] = [:]
    private var checkedAt = Date.distantPast

    public init(root: URL) {
        self.root = root.standardizedFileURL
        lock.lock()
        rescanLocked()
        lock.unlock()
    }

    /// Every track, in path order; rescans first when a folder changed.
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

    /// Rescans now (on demand).
    public func rescan() {
        lock.lock()
        rescanLocked()
        lock.unlock()
    }

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
        guard now.timeIntervalSince(checkedAt) >= Self.staleAfter else { return }
        checkedAt = now
        if currentFolderStamps() != folderStamps { rescanLocked() }
    }

    private func currentFolderStamps() -> [String: Date] {
        var stamps: [String: Date] = [:]
        let manager = FileManager.default
        var pending = [root.path]
        while let folder = pending.popLast() {
            stamps[folder] = (try? manager.attributesOfItem(atPath: folder)[.modificationDate] as? Date) ?? nil
            for name in (try? manager.contentsOfDirectory(atPath: folder)) ?? [] where !name.hasPrefix(".") {
                var isDirectory: ObjCBool = false
                let path = folder + "/" + name
                if manager.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { pending.append(path) }
            }
        }
        return stamps
    }

    private func rescanLocked() {
        _ = TagFile.unicode
        folderStamps = currentFolderStamps()
        checkedAt = Date()
        var found: [String: Item] = [:]
        for folder in folderStamps.keys.sorted() {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
            let cover = Self.coverNames.first { names.map { $0.lowercased() }.contains($0) }
                .flatMap { wanted in names.first { $0.lowercased() == wanted } }.map { folder + "/" + $0 }
            let relativeFolder = String(folder.dropFirst(root.path.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            for name in names where Self.audioExtensions.contains((name as NSString).pathExtension.lowercased()) {
                let path = folder + "/" + name
                let relative = relativeFolder.isEmpty ? name : relativeFolder + "/" + name
                let id = Self.identifier(for: relative)
                let tags = TagFile(path: path)?.tags
                let fallbackTitle = (name as NSString).deletingPathExtension
                let track = Track(
                    id: id, uri: LocalProvider.uriPrefix + id,
                    name: tags.map { $0.title.isEmpty ? fallbackTitle : $0.title } ?? fallbackTitle,
                    artists: [tags?.artist.isEmpty == false ? tags!.artist : "Unbekannt"],
                    album: tags?.album.isEmpty == false ? tags!.album : relativeFolder,
                    imageURL: cover == nil ? nil : "/local/cover/\(id)", durationMs: tags?.durationMs ?? 0)
                found[id] = Item(track: track, path: path, coverPath: cover, folder: relativeFolder)
            }
        }
        items = found
        order = found.values.sorted { $0.path < $1.path }.map(\.track.id)
    }

    /// A stable id from the path inside the library (FNV-1a, 64 bit, hex): survives restarts and rescans.
    static func identifier(for relativePath: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in relativePath.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
