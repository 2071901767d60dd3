import DrawEngine
import JSON

extension DrawMessageParser {
    /// `{"statement":"lock"|"result","round":n}` with, when the observer's own key signed,
    /// `"target"` (the chain head signed), `"publicKey"` and `"signature"` in hex (docs/PROTOCOL.md "Sign-offs").
    static func signoffRequest(_ json: JSONValue) throws(MessageError) -> Draw.SignoffRequest {
        guard let statement = json["statement"]?.stringValue.flatMap(Signoff.Statement.init(rawValue:)) else { throw .badField("statement") }
        guard let round = json["round"]?.intValue, let small = Int(exactly: round), small >= 1 else { throw .badField("round") }
        func hex(_ name: String) throws(MessageError) -> String? {
            guard let value = json[name], !value.isNull else { return nil }
            guard let text = value.stringValue, text.utf8.count <= 128 else { throw .badField(name) }
            return text
        }
        return Draw.SignoffRequest(statement: statement, round: small, target: try hex("target"), publicKey: try hex("publicKey"),
                                   signature: try hex("signature"))
    }
}
