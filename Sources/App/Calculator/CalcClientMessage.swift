import Server
import JSON
import CalculatorEngine

/// One message a `/ws/calc` client sends (docs/PROTOCOL.md). Unknown fields are ignored.
enum CalcClientMessage: Equatable {
    case key(CalculatorKey, seq: Int)
    case mode(CalculatorMode)
    case angle(AngleUnit)
    case resume(session: String)

    /// Largest message the calculator reads; larger ones are answered `too_large`.
    static let maxBytes = 4096

    /// The failure of `decode`, with the message's `seq` when it had a valid one.
    struct Failure: Error, Equatable {
        var error: CalcProtocolError
        var seq: Int?
    }

    static func decode(_ text: String) throws(Failure) -> CalcClientMessage {
        guard text.utf8.count <= maxBytes else {
            throw Failure(error: .tooLarge("Calculator messages are at most \(maxBytes) bytes"))
        }
        let json: JSONValue
        do {
            json = try CalcJSON.parse(text)
        } catch {
            throw Failure(error: .badJSON)
        }
        guard case .object = json else { throw Failure(error: .badRequest("A message is a JSON object")) }
        guard let type = json["type"]?.stringValue else { throw Failure(error: .badRequest("\"type\" must be a string")) }
        switch type {
        case "key":
            let seq = json["seq"]?.positiveInteger
            guard let wire = json["key"]?.stringValue else {
                throw Failure(error: .badRequest("\"key\" must be a string"), seq: seq)
            }
            guard let seq else { throw Failure(error: .badRequest("\"seq\" must be a positive integer")) }
            guard let key = CalculatorKeyWire.key(for: wire) else { throw Failure(error: .unknownKey(wire), seq: seq) }
            return .key(key, seq: seq)
        case "mode":
            guard let wire = json["mode"]?.stringValue, let mode = CalculatorKeyWire.mode(for: wire) else {
                throw Failure(error: .badRequest("\"mode\" must be \"basic\" or \"scientific\""))
            }
            return .mode(mode)
        case "angle":
            guard let wire = json["unit"]?.stringValue, let unit = CalculatorKeyWire.angle(for: wire) else {
                throw Failure(error: .badRequest("\"unit\" must be \"deg\" or \"rad\""))
            }
            return .angle(unit)
        case "resume":
            guard let session = json["session"]?.stringValue else {
                throw Failure(error: .badRequest("\"session\" must be a string"))
            }
            return .resume(session: session)
        default:
            throw Failure(error: .unknownType(type))
        }
    }
}
