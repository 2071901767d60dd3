import Server
import JSON
import CalculatorEngine

/// One message a `/ws/calc` client sends (docs/PROTOCOL.md). Unknown fields are ignored.
enum CalcClientMessage: Equatable {
    case key(CalculatorKey, seq: Int)
    case mode(CalculatorMode)
    case angle(AngleUnit)
    case resume(session: String)
    /// Digits of the current result after the point: `count` of them from `position`.
    case digits(position: Int, count: Int)

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
        case "digits":
            let (position, count) = try digitsWindow(json)
            return .digits(position: position, count: count)
        default:
            throw Failure(error: .unknownType(type))
        }
    }
}

extension CalcClientMessage {
    /// `position` (default 1) and `count` of a digits request, within `CalculatorValue`'s limits.
    static func digitsWindow(_ json: JSONValue) throws(Failure) -> (position: Int, count: Int) {
        var position = 1
        if let field = json["position"] {
            guard let value = field.positiveInteger else { throw Failure(error: .badRequest("\"position\" must be a positive integer")) }
            position = value
        }
        guard let count = json["count"]?.positiveInteger else {
            throw Failure(error: .badRequest("\"count\" must be a positive integer"))
        }
        guard count <= CalculatorValue.maximumCount else {
            throw Failure(error: .outOfRange("At most \(CalculatorValue.maximumCount) digits per request"))
        }
        guard position + count - 1 <= CalculatorValue.maximumPosition else {
            throw Failure(error: .outOfRange("Digits go up to position \(CalculatorValue.maximumPosition) after the point"))
        }
        return (position, count)
    }
}
