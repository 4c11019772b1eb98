import Foundation
import CTagLib

/// One audio file opened with TagLib's C API; owns the `TagLib_File` handle and frees it in deinit.
final class TagFile {
    private let handle: OpaquePointer

    /// Nil when TagLib cannot read the file (unknown format, broken file).
    init?(path: String) {
        guard let file = taglib_file_new(path) else { return nil }
        guard taglib_file_is_valid(file) != 0 else {
            taglib_file_free(file)
            return nil
        }
        handle = OpaquePointer(file)
    }

    deinit { taglib_file_free(UnsafeMutablePointer(handle)) }

    private var file: UnsafeMutablePointer<TagLib_File> { UnsafeMutablePointer(handle) }

    struct Tags: Equatable {
        var title: String
        var artist: String
        var album: String
        var durationMs: Int
    }

    /// TagLib's C strings live in one process-wide list (`taglib_tag_free_strings`): one reader at a time.
    private static let stringsLock = NSLock()

    var tags: Tags {
        Self.stringsLock.lock()
        defer { Self.stringsLock.unlock() }
        var tags = Tags(title: "", artist: "", album: "", durationMs: 0)
        if let tag = taglib_file_tag(file) {
            tags.title = Self.take(taglib_tag_title(tag))
            tags.artist = Self.take(taglib_tag_artist(tag))
            tags.album = Self.take(taglib_tag_album(tag))
        }
        if let properties = taglib_file_audioproperties(file) {
            tags.durationMs = Int(taglib_audioproperties_length(properties)) * 1000
        }
        // The strings TagLib returned belong to it until this call (tag_c.h).
        taglib_tag_free_strings()
        return tags
    }

    /// Writes tags (used by tests to make tagged files).
    func write(title: String, artist: String, album: String) -> Bool {
        Self.stringsLock.lock()
        defer { Self.stringsLock.unlock() }
        guard let tag = taglib_file_tag(file) else { return false }
        taglib_tag_set_title(tag, title)
        taglib_tag_set_artist(tag, artist)
        taglib_tag_set_album(tag, album)
        return taglib_file_save(file) != 0
    }

    private static func take(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        return String(cString: pointer).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// TagLib speaks UTF-8 when told so once, before any file is opened.
    static let unicode: Void = { taglib_set_strings_unicode(1) }()
}
