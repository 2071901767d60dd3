import DrawEngine
import JSON

/// What a round's Start froze, kept beside the log while it rolls (`{d:CODE}:rolling`, written
/// by the owner with the lease), so that a new owner carries the same round on (same commitment,
/// contributions and audience number: the same winners at Stop; docs/CLUSTER.md, *Takeover*).
/// The one encoder and the one decoder of that value.
package struct ClusterRollingHint: Equatable, Sendable {
    package var commitment: String
    package var round: Int
    package var contributions: [Contribution]
    package var audience: String?

    package init(commitment: String, round: Int, contributions: [Contribution], audience: String?) {
        self.commitment = commitment
        self.round = round
        self.contributions = contributions
        self.audience = audience
    }

    /// What `draw`'s Start froze; nil unless it is rolling on a commitment.
    package init?(rolling draw: Draw) {
        guard draw.phase == .rolling, let commit = draw.commit else { return nil }
        self.init(commitment: commit.commitment, round: commit.round, contributions: draw.frozenContributions,
                  audience: draw.frozenAudience)
    }

    /// `{"audience","commitment","contributions":[hex…],"round"}`.
    package var encoded: [UInt8] {
        Array(JSONValue.object([
            "commitment": .string(commitment), "round": .int(Int64(round)),
            "contributions": .array(contributions.map { .string($0.hex) }),
            "audience": audience.map { .string($0) } ?? .null,
        ]).canonicalString.utf8)
    }

    package static func decode(_ text: String) throws(ClusterWireError) -> ClusterRollingHint {
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
        return ClusterRollingHint(commitment: commitment, round: small, contributions: contributions, audience: audience)
    }
}
