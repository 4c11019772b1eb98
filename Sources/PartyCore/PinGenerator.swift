/// R2: guest and host PINs, 5 digits each, different, unused among active parties.
public enum PinGenerator {
    public static let maxAttempts = 64

    public static func pin<R: RandomNumberGenerator>(using random: inout R) -> String {
        let value = Int.random(in: 0..<100_000, using: &random)
        let digits = String(value)
        return String(repeating: "0", count: 5 - digits.count) + digits
    }

    /// A fresh pair, or `.pinsExhausted` after bounded retries.
    public static func pair<R: RandomNumberGenerator>(
        using random: inout R, isTaken: (String) -> Bool, attempts: Int = maxAttempts
    ) throws(PartyError) -> (guest: String, host: String) {
        for _ in 0..<attempts {
            let guest = pin(using: &random), host = pin(using: &random)
            if guest != host, !isTaken(guest), !isTaken(host) { return (guest, host) }
        }
        throw .pinsExhausted
    }

    /// One fresh PIN (a rotated host PIN: the party's own PINs are taken too), or `.pinsExhausted` after bounded retries.
    public static func single<R: RandomNumberGenerator>(
        using random: inout R, isTaken: (String) -> Bool, attempts: Int = maxAttempts
    ) throws(PartyError) -> String {
        for _ in 0..<attempts {
            let pin = pin(using: &random)
            if !isTaken(pin) { return pin }
        }
        throw .pinsExhausted
    }

    public static func isWellFormed(_ pin: String) -> Bool {
        pin.utf8.count == 5 && pin.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
    }
}
