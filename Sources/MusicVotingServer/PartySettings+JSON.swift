import JSONKit
import PartyCore

/// R9b, R17a, R33, R35, R36 on the wire: `{fairQueue, vetoShare, history, approval, nicknames}`.
extension PartySettings {
    var json: JSON {
        ["fairQueue": .bool(fairQueue), "vetoShare": .number(vetoShare), "history": .bool(history), "approval": .string(approval.rawValue),
         "nicknames": .bool(nicknames)]
    }

    /// The fields `json` carries, over `base` (a field left out keeps its value). `fairQueue` must be a boolean and
    /// `vetoShare` a number from 0 to 1, `history` a boolean, `approval` one of `off`, `new-guests`, `all`, `nicknames` a boolean, else 400 (R24b).
    static func reading(_ json: JSON?, over base: PartySettings) throws -> PartySettings {
        guard let json, json != .null else { return base }
        guard case .object = json else { throw PartyError.invalidInput("Invalid JSON body") }
        var settings = base
        if let value = json["fairQueue"], value != .null {
            guard let flag = value.boolValue else { throw PartyError.invalidInput("fairQueue muss true oder false sein.") }
            settings.fairQueue = flag
        }
        if let value = json["vetoShare"], value != .null {
            guard let share = value.numberValue, isValid(vetoShare: share) else {
                throw PartyError.invalidInput("vetoShare muss eine Zahl von 0 bis 1 sein.")
            }
            settings.vetoShare = share
        }
        if let value = json["history"], value != .null {
            guard let flag = value.boolValue else { throw PartyError.invalidInput("history muss true oder false sein.") }
            settings.history = flag
        }
        if let value = json["approval"], value != .null {
            guard let mode = value.stringValue.flatMap(ApprovalMode.init(rawValue:)) else {
                throw PartyError.invalidInput("approval muss off, new-guests oder all sein.")
            }
            settings.approval = mode
        }
        if let value = json["nicknames"], value != .null {
            guard let flag = value.boolValue else { throw PartyError.invalidInput("nicknames muss true oder false sein.") }
            settings.nicknames = flag
        }
        return settings
    }
}
