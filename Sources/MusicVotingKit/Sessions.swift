import Foundation

/// Where the kit keeps what must survive a restart of the app: a small key → bytes store.
public protocol SessionStorage: Sendable {
    func data(forKey key: String) -> Data?
    func set(_ data: Data?, forKey key: String)
}

/// One file per key in a folder (Linux, the CLI).
public struct FileSessionStorage: SessionStorage {
    public let folder: URL
    public init(folder: URL) {
        self.folder = folder
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
    public func data(forKey key: String) -> Data? { try? Data(contentsOf: folder.appendingPathComponent(key + ".json")) }
    public func set(_ data: Data?, forKey key: String) {
        let file = folder.appendingPathComponent(key + ".json")
        if let data { try? data.write(to: file, options: .atomic) } else { try? FileManager.default.removeItem(at: file) }
    }
}

/// `UserDefaults` (the iOS app).
public struct UserDefaultsSessionStorage: SessionStorage, @unchecked Sendable {
    // @unchecked: UserDefaults is documented as thread-safe.
    private let defaults: UserDefaults
    public init(defaults: UserDefaults = .standard) { self.defaults = defaults }
    public func data(forKey key: String) -> Data? { defaults.data(forKey: "musicvoting." + key) }
    public func set(_ data: Data?, forKey key: String) { defaults.set(data, forKey: "musicvoting." + key) }
}

public struct GuestSession: Codable, Hashable, Sendable {
    public let partyId: String
    public let pin: String
    public init(partyId: String, pin: String) { self.partyId = partyId; self.pin = pin }
}

public struct HostSession: Codable, Hashable, Sendable {
    public let partyId: String
    public let hostPin: String
    public let guestPin: String?
    public init(partyId: String, hostPin: String, guestPin: String?) { self.partyId = partyId; self.hostPin = hostPin; self.guestPin = guestPin }
}

/// The device id (a UUID made once), the guest session and the host session; each survives a restart until
/// it is left explicitly.
public struct Sessions: Sendable {
    let storage: any SessionStorage
    public init(storage: any SessionStorage) { self.storage = storage }

    public var deviceId: String {
        if let data = storage.data(forKey: "deviceId"), let id = String(data: data, encoding: .utf8), UUID(uuidString: id) != nil { return id }
        let id = UUID().uuidString
        storage.set(Data(id.utf8), forKey: "deviceId")
        return id
    }

    public var guest: GuestSession? { load("guest") }
    public var host: HostSession? { load("host") }
    public func save(_ session: GuestSession) { store(session, "guest") }
    public func save(_ session: HostSession) { store(session, "host") }
    public func leaveGuest() { storage.set(nil, forKey: "guest") }
    public func leaveHost() { storage.set(nil, forKey: "host") }

    private func load<Value: Decodable>(_ key: String) -> Value? { storage.data(forKey: key).flatMap { try? JSONDecoder().decode(Value.self, from: $0) } }
    private func store(_ value: some Encodable, _ key: String) { storage.set(try? JSONEncoder().encode(value), forKey: key) }
}
