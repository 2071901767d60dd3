import JSON

/// A follower's pages with a check-in part of their own (a phone's `me`, a host's `names`) get the
/// owner's public `state` snapshot with that part in place of the public one: the snapshot is
/// parsed and serialised once, and each page's part is spliced in as text.
public struct OwnCheckinSplice: Sendable {
    let prefix: Substring
    let suffix: Substring

    /// nil when `snapshot` is not a `state` object with a `checkin` object.
    public init?(snapshot: String) {
        guard case .object(var shown)? = try? JSONValue.parse(snapshot), shown["checkin"]?.objectValue != nil else { return nil }
        let marker = "\u{1}own-checkin\u{1}"
        shown["checkin"] = .string(marker)
        let template = JSONValue.object(shown).canonicalString
        guard let range = template.firstRange(of: JSONValue.string(marker).canonicalString) else { return nil }
        prefix = template[..<range.lowerBound]
        suffix = template[range.upperBound...]
    }

    /// The snapshot with `part` as its `checkin`.
    public func text(with part: JSONValue) -> String {
        String(prefix) + part.canonicalString + String(suffix)
    }
}
