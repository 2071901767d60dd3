import DrawEngine
import DrawRoomCore
import JSON

/// What a round's Start froze (`RollingStart`), kept beside the log while it rolls
/// (`{d:CODE}:rolling`, written by the owner with the lease), so that a new owner carries the same
/// round on (same commitment, contributions and audience number: the same winners at Stop;
/// docs/CLUSTER.md, *Takeover*). A single box keeps the same text in SQLite (`pending_seeds`).
package typealias ClusterRollingHint = RollingStart

extension RollingStart {
    /// `{"audience","commitment","contributions":[hex…],"round"}`: the one encoder of that value.
    package var encoded: [UInt8] {
        Array(JSONValue.object([
            "commitment": .string(commitment), "round": .int(Int64(round)),
            "contributions": .array(contributions.map { .string($0.hex) }),
            "audience": audience.map { .string($0) } ?? .null,
        ]).canonicalString.utf8)
    }

    /// The one decoder.
    package static func decode(_ text: String) throws(ClusterWireError) -> RollingStart {
        guard let json = try? JSONValue.parse(text), json.objectValue != nil else { throw .notJSON }
        guard let commitment = json["commitment"]?.stringValue else { throw .badMember("commitment") }
        guard let round = json["round"]?.intValue, let small = Int(exactly: round) else { throw .badMember("round") }
        guard let items = json["contributions"]?.arrayValue else { throw .badMember("contributions") }
        let contributions = items.compactMap { $0.stringValue.flatMap(Contribution.init(hex:)) }
        guard contributions.count == items.count else { throw .badMember("contributions") }
        let audience: String?
        switch json["audience"] {
        case nil, .null?: audience = nil
        case .string(let text)?: audience = text
        default: throw .badMember("audience")
        }
        return RollingStart(commitment: commitment, round: small, contributions: contributions, audience: audience)
    }
}
