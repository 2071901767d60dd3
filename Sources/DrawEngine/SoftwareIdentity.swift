import JSON

/// Which program wrote a record (issue #47): the release, the git commit it was built from and
/// the SHA-256 of the running binary (computed once at start-up). Each `commit` record carries it
/// (`"software"`), inside the record's hash, so the record names the software that made every
/// round drawn on that commitment; `tombola verify` and the certificate show it.
public struct SoftwareIdentity: Sendable, Equatable {
    public var version: String
    public var commit: String
    /// Lower-case hex SHA-256 of the executable, or "unknown" when it could not be read.
    public var sha256: String

    public init(version: String, commit: String, sha256: String) {
        self.version = version
        self.commit = commit
        self.sha256 = sha256
    }

    /// `{"commit","sha256","version"}`.
    public var json: JSONValue {
        .object(["version": .string(version), "commit": .string(commit), "sha256": .string(sha256)])
    }

    /// A record's `software`, or nil when it has none or it is not three strings.
    public init?(json: JSONValue?) {
        guard let json, let version = json["version"]?.stringValue, let commit = json["commit"]?.stringValue,
              let sha256 = json["sha256"]?.stringValue, json.objectValue?.count == 3 else { return nil }
        self.init(version: version, commit: commit, sha256: sha256)
    }

    /// "tombola 1.0.0 (commit 0123456789ab, binary sha256 0123456789abcdef…)".
    public var summary: String {
        "tombola \(version) (commit \(commit), binary sha256 \(sha256.prefix(16))…)"
    }
}
