#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Crypto
import DrawEngine
import JSON
import Locking

/// The server's Ed25519 record-signing key (issue #47, docs/FAIRNESS.md §17), one per server (its
/// `DrawRoomSettings.signer`, loaded at start-up before any draw is read or written) and read by the
/// stores that sign each record they append, the export and `GET /api/server/key`.
///
/// A single box keeps the key in `signing.key` in its data directory (32 random bytes, mode 0600,
/// made at the first start; `SeedKeyFile` does the same for `seed.key`); earlier keys' hand-overs
/// in `signing-rotations.json` beside it (`tombola rotate-signing-key`). A cluster derives one key
/// for all instances from the cluster key (`derived(clusterKey:)`).
public enum ServerSigning {
    public static let keyFileName = "signing.key"
    public static let rotationsFileName = "signing-rotations.json"


    /// The key of the data directory `directory` (made if there is none) and its rotations.
    public static func load(dataDirectory directory: String) throws -> RecordSigner {
        let key = try loadOrCreateKey(at: path(directory, keyFileName))
        return RecordSigner(key: key, rotations: try loadRotations(at: path(directory, rotationsFileName), endingAt: key))
    }

    /// Every instance of a cluster signs with the key HMAC-SHA-256(cluster key, "tombola-signing-key-v1")
    /// derives: the same key wherever the cluster key file is, nothing more to copy or back up.
    public static func derived(clusterKey: [UInt8]) -> RecordSigner {
        let seed = HMACSHA256.authenticationCode(key: clusterKey, message: Array("tombola-signing-key-v1".utf8))
        guard let key = Ed25519PrivateKey(seed: seed) else { preconditionFailure("libcrypto refused a derived Ed25519 seed") }
        return RecordSigner(key: key)
    }

    /// `GET /api/server/key`: the key a reader checks exports with (its hex, fingerprint, rotations).
    /// The signer is the server's own (its `DrawRoomSettings.signer`), never a process-wide one: two
    /// servers in one process (the Swift tests) each sign with their own key.
    public static func keyDocument(_ signer: RecordSigner?) -> JSONValue? {
        signer.map { .object($0.keyMembers) }
    }

    /// Replaces the key of `directory` by a new one, the old key signing the hand-over into
    /// `signing-rotations.json` first (`tombola rotate-signing-key`; with the server stopped).
    public static func rotate(dataDirectory directory: String, at: Int64) throws -> (old: RecordSigner, new: RecordSigner) {
        let old = try load(dataDirectory: directory)
        let next = Ed25519PrivateKey.generate()
        let rotations = old.rotations + [KeyRotation.make(old: old.key, new: next.publicKey, at: at)]
        let text = JSONValue.array(rotations.map(\.json)).canonicalString + "\n"
        try writeReplacing(path(directory, rotationsFileName), bytes: Array(text.utf8), mode: 0o644)
        try writeReplacing(path(directory, keyFileName), bytes: next.seed, mode: 0o600)
        return (old, RecordSigner(key: next, rotations: rotations))
    }

    static func path(_ directory: String, _ name: String) -> String {
        ((directory.isEmpty ? "." : directory) as NSString).appendingPathComponent(name)
    }

    /// The 32-byte seed at `path`; made exclusively with mode 0600 and synced when absent.
    static func loadOrCreateKey(at path: String) throws -> Ed25519PrivateKey {
        if let data = FileManager.default.contents(atPath: path) {
            guard let key = Ed25519PrivateKey(seed: Array(data)) else { throw SigningKeyError("\(path) is not a 32-byte Ed25519 seed") }
            return key
        }
        let key = Ed25519PrivateKey.generate()
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            // Another process made it meanwhile: read theirs.
            if errno == EEXIST, let data = FileManager.default.contents(atPath: path), let theirs = Ed25519PrivateKey(seed: Array(data)) {
                return theirs
            }
            throw SigningKeyError("cannot create \(path)")
        }
        defer { close(fd) }
        let written = key.seed.withUnsafeBytes { write(fd, $0.baseAddress, 32) }
        guard written == 32, fsync(fd) == 0 else { throw SigningKeyError("cannot write \(path)") }
        return key
    }

    /// The rotations at `path` (none when absent); their last hand-over must name `key`.
    static func loadRotations(at path: String, endingAt key: Ed25519PrivateKey) throws -> [KeyRotation] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        guard let items = (try? JSONValue.parse(String(decoding: data, as: UTF8.self)))?.arrayValue else {
            throw SigningKeyError("\(path) is not a JSON array of rotations")
        }
        let rotations = items.compactMap(KeyRotation.init(json:))
        guard rotations.count == items.count, rotations.last.map({ $0.new == Hex.encode(key.publicKey) }) ?? true else {
            throw SigningKeyError("\(path) does not end with a hand-over to the key in \(keyFileName)")
        }
        return rotations
    }

    /// Writes `bytes` to a temporary file, syncs it and renames it over `path`.
    static func writeReplacing(_ path: String, bytes: [UInt8], mode: mode_t) throws {
        let temporary = path + ".new"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw SigningKeyError("cannot create \(temporary)") }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else { throw SigningKeyError("cannot write \(path)") }
    }
}

public struct SigningKeyError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
