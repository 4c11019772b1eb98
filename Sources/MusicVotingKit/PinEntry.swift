import Foundation
import Observation

/// Five digit boxes: typing fills them, the fifth digit submits; a refused PIN makes the boxes shake and clears them.
@MainActor
@Observable
public final class PinEntry {
    public static let length = 5
    public private(set) var digits: [Character] = []
    /// Bumped on every refusal: the view runs its shake animation when it changes.
    public private(set) var shakes = 0
    public private(set) var busy = false
    public private(set) var error: String?

    @ObservationIgnored private let submit: @MainActor (String) async throws -> Void

    /// `submit` gets the five digits; if it throws, the boxes shake and clear.
    public init(submit: @escaping @MainActor (String) async throws -> Void) { self.submit = submit }

    public var pin: String { String(digits) }

    /// A typed (or pasted) character or string; non-digits are ignored.
    public func type(_ text: String) async {
        for character in text where character.isASCII && character.isNumber {
            guard digits.count < Self.length, !busy else { break }
            digits.append(character)
        }
        guard digits.count == Self.length, !busy else { return }
        busy = true
        defer { busy = false }
        do {
            try await submit(pin)
            error = nil
        } catch {
            self.error = (error as? APIError)?.serverMessage
            shakes += 1
            digits = []
        }
    }

    public func deleteBackward() { if !digits.isEmpty && !busy { digits.removeLast() } }
}
