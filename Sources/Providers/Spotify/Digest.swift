import Foundation
import CGnuTLS

/// SHA-256, HMAC-SHA-256 and random bytes from GnuTLS (hand-written crypto is not worth the risk).
enum Digest {
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        _ = bytes.withUnsafeBytes { input in gnutls_hash_fast(GNUTLS_DIG_SHA256, input.baseAddress, input.count, &output) }
        return output
    }

    static func hmacSHA256(key: [UInt8], _ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        _ = key.withUnsafeBytes { keyBytes in
            bytes.withUnsafeBytes { input in
                gnutls_hmac_fast(GNUTLS_MAC_SHA256, keyBytes.baseAddress, keyBytes.count, input.baseAddress, input.count, &output)
            }
        }
        return output
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        if gnutls_rnd(GNUTLS_RND_KEY, &output, count) != 0 {
            var generator = SystemRandomNumberGenerator()
            output = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        }
        return output
    }

    /// RFC 4648 base64url without padding (PKCE and our state tokens).
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func fromBase64URL(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map { [UInt8]($0) }
    }

    /// Compares without an early exit, so the time taken does not reveal how much of a signature matched.
    static func constantTimeEqual(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        guard left.count == right.count else { return false }
        return zip(left, right).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
