import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PartyCore

/// Spotify's Accounts service and Web API for one app: code exchange, refresh before expiry and on a 401,
/// Retry-After on a 429, and the revoked-login case.
public struct SpotifyClient: Sendable {
    public let configuration: SpotifyConfiguration
    let vault: any TokenVault
    let http: ProviderHTTP

    public init(configuration: SpotifyConfiguration, vault: any TokenVault, http: ProviderHTTP = ProviderHTTP(provider: "spotify")) {
        self.configuration = configuration
        self.vault = vault
        self.http = http
    }

    /// The authorize URL the host's browser is sent to (authorization code with PKCE).
    public func authorizeURL(state: String, challenge: String, redirectURI: String) -> URL {
        var components = URLComponents(url: configuration.accountsBase.appendingPathComponent("authorize"), resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "client_id", value: configuration.clientId),
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "redirect_uri", value: redirectURI),
            URLQueryItem(name: "code_challenge_method", value: "S256"),
            URLQueryItem(name: "code_challenge", value: challenge),
            URLQueryItem(name: "scope", value: SpotifyConfiguration.scopes.joined(separator: " ")),
            URLQueryItem(name: "state", value: state),
        ]
        return components.url!
    }

    /// Exchanges the callback's code; stores and returns the party's tokens.
    @discardableResult
    public func exchange(code: String, verifier: String, redirectURI: String, partyId: String) throws(ProviderError) -> ProviderTokens {
        let tokens = try tokenRequest(["grant_type": "authorization_code", "code": code, "redirect_uri": redirectURI,
                                       "code_verifier": verifier], previousRefresh: nil)
        vault.save(tokens, partyId: partyId)
        return tokens
    }

    /// A valid access token for the party, refreshed first when it expires within a minute.
    public func accessToken(partyId: String, forceRefresh: Bool = false) throws(ProviderError) -> String {
        guard let tokens = vault.tokens(partyId: partyId), tokens.refreshToken != nil || tokens.accessToken != nil else {
            throw .notLoggedIn
        }
        if !forceRefresh, !tokens.needsRefresh(at: Date()), let access = tokens.accessToken { return access }
        guard let refresh = tokens.refreshToken else { throw .sessionExpired }
        let fresh = try tokenRequest(["grant_type": "refresh_token", "refresh_token": refresh], previousRefresh: refresh,
                                     partyId: partyId)
        vault.save(fresh, partyId: partyId)
        return fresh.accessToken ?? ""
    }

    private func tokenRequest(_ form: [String: String], previousRefresh: String?, partyId: String? = nil) throws(ProviderError) -> ProviderTokens {
        var request = URLRequest(url: configuration.accountsBase.appendingPathComponent("api/token"))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        var fields = form
        if let secret = configuration.clientSecret {
            let credentials = Data("\(configuration.clientId):\(secret)".utf8).base64EncodedString()
            request.setValue("Basic \(credentials)", forHTTPHeaderField: "Authorization")
        } else {
            fields["client_id"] = configuration.clientId
        }
        request.httpBody = Data(Self.formEncoded(fields).utf8)
        let reply = try http.send(request)
        if reply.status == 400, let failure = try? JSONDecoder().decode(SpotifyAPI.TokenError.self, from: reply.body),
           failure.error == "invalid_grant" {
            // Revoked or expired login: forget it, so the host sees "log in again" rather than retries.
            if let partyId { vault.delete(partyId: partyId) }
            throw previousRefresh == nil ? .unavailable("Spotify hat die Anmeldung abgelehnt.") : .sessionExpired
        }
        guard reply.status == 200, let body = try? JSONDecoder().decode(SpotifyAPI.TokenResponse.self, from: reply.body) else {
            throw .unavailable("Spotify-Anmeldung gerade nicht möglich (\(reply.status)).")
        }
        return ProviderTokens(provider: "spotify", accessToken: body.access_token, refreshToken: body.refresh_token ?? previousRefresh,
                              expiresAt: Date().addingTimeInterval(TimeInterval(body.expires_in)))
    }

    /// A Web API call for the party; one refresh-and-retry on a 401. `forbidden`: what a 403 means for this call.
    public func api(_ method: String, _ path: String, query: [String: String] = [:], json: [String: Any]? = nil,
                    partyId: String, forbidden: ProviderError? = nil) throws(ProviderError) -> ProviderHTTP.Reply {
        var reply = try send(method, path, query: query, json: json, token: try accessToken(partyId: partyId))
        if reply.status == 401 {
            reply = try send(method, path, query: query, json: json, token: try accessToken(partyId: partyId, forceRefresh: true))
        }
        if reply.status == 429 {
            throw .rateLimited(retryAfterSeconds: Int(reply.headers["retry-after"] ?? "") ?? 5)
        }
        if reply.status == 401 { throw .sessionExpired }
        if reply.status == 403, let forbidden { throw forbidden }
        if reply.status == 404, path.hasPrefix("me/player") { throw .deviceNotFound }
        guard (200..<300).contains(reply.status) else { throw .unavailable("Spotify antwortet gerade nicht (\(reply.status)).") }
        return reply
    }

    public func decode<Body: Decodable>(_ type: Body.Type, _ reply: ProviderHTTP.Reply) throws(ProviderError) -> Body {
        do { return try JSONDecoder().decode(type, from: reply.body) } catch { throw .unavailable("Spotify hat unerwartet geantwortet.") }
    }

    private func send(_ method: String, _ path: String, query: [String: String], json: [String: Any]?,
                      token: String) throws(ProviderError) -> ProviderHTTP.Reply {
        var components = URLComponents(url: configuration.apiBase.appendingPathComponent(path), resolvingAgainstBaseURL: false)!
        if !query.isEmpty { components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) } }
        guard let url = components.url else { throw .unavailable("Spotify-Anfrage ungültig.") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if let json, let body = try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]) {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = body
        }
        return try http.send(request)
    }

    static func formEncoded(_ fields: [String: String]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.sorted { $0.key < $1.key }.map { key, value in
            "\(key)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }.joined(separator: "&")
    }
}
