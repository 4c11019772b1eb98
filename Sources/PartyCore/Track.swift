import Foundation

/// A song as every provider describes it; the API renders it in Spotify's track shape.
public struct Track: Equatable, Hashable, Sendable, Codable {
    public var id: String
    public var uri: String
    public var name: String
    public var artists: [String]
    public var album: String
    public var imageURL: String?
    public var durationMs: Int

    public init(id: String, uri: String, name: String, artists: [String], album: String, imageURL: String?, durationMs: Int) {
        self.id = id
        self.uri = uri
        self.name = name
        self.artists = artists
        self.album = album
        self.imageURL = imageURL
        self.durationMs = durationMs
    }
}
