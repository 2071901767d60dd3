import Crypto
import DrawEngine
import Embedded

/// The running program as the record names it (issue #47): the release and commit it was built
/// from, and the SHA-256 of the executable itself, computed once (at start-up: `DrawService.open`
/// reads it before any draw) from `/proc/self/exe`. A record, a certificate and `tombola verify`
/// then say which binary wrote it; anyone holding the release binary can compare its `sha256sum`.
public enum BinaryIdentity {
    public static let sha256: String = SHA256.fileHexDigest(path: "/proc/self/exe") ?? "unknown"

    public static var software: SoftwareIdentity {
        SoftwareIdentity(version: BuildInfo.version, commit: BuildInfo.commit, sha256: sha256)
    }
}
