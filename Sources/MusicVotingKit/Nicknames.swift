import Foundation

struct NicknameAnswer: Decodable, Sendable { let nickname: String? }
/// The body of a change; a nil nickname is sent as `null` (it clears), never left out.
struct NicknameChange: Encodable, Sendable {
    let deviceId: String
    let nickname: String?

    enum CodingKeys: String, CodingKey { case deviceId, nickname }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(deviceId, forKey: .deviceId)
        if let nickname { try container.encode(nickname, forKey: .nickname) } else { try container.encodeNil(forKey: .nickname) }
    }
}

extension MusicVotingClient {
    /// R36: names this device in the party (nil clears it); answers the nickname as the party shows it. 409 while the
    /// party keeps its guests anonymous or the name is taken, 403 for a blacklisted one, 400 for one that is no name.
    public func setNickname(_ id: String, deviceId: String, nickname: String?) async throws(APIError) -> String? {
        let answer: NicknameAnswer = try await send("PUT", party(id, "/nickname"), body: NicknameChange(deviceId: deviceId, nickname: nickname))
        return answer.nickname
    }
}
