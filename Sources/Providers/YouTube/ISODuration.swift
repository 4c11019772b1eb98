import PartyCore

/// YouTube's `contentDetails.duration` (ISO 8601, e.g. `PT4M13S`, `PT1H2M`, `P1DT2S`) in milliseconds.
enum ISODuration {
    /// Longer than any playable video; past it (`P9999999999999999W`) the value is refused, not converted.
    static let maxSeconds: Double = 30 * 86_400

    static func milliseconds(_ text: String) -> Int? {
        guard text.hasPrefix("P") else { return nil }
        var total = 0.0
        var number = ""
        var inTime = false
        var sawUnit = false
        for character in text.dropFirst() {
            switch character {
            case "T": inTime = true
            case "0"..."9", ".": number.append(character)
            default:
                guard let value = Double(number) else { return nil }
                let seconds: Double
                switch (character, inTime) {
                case ("W", false): seconds = 604_800
                case ("D", false): seconds = 86_400
                case ("H", true): seconds = 3_600
                case ("M", true): seconds = 60
                case ("S", true): seconds = 1
                default: return nil
                }
                total += value * seconds
                number = ""
                sawUnit = true
            }
        }
        guard number.isEmpty, sawUnit, total.isFinite, total <= maxSeconds else { return nil }
        return Int(saturating: (total * 1000).rounded())
    }
}
