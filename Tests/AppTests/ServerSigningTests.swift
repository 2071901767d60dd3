#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import Crypto
import DrawEngine
@testable import App

/// Issue #47 item 1: a single box's signing key is made once (mode 0600) in its data directory and
/// read back unchanged; a rotation hands it over, signed by the old key; a cluster's key is derived
/// from the cluster key, the same on every instance.
@Suite struct ServerSigningTests {
    static func directory() -> String {
        let path = NSTemporaryDirectory() + "tombola-signing-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func theKeyFileIsMadeOnceWithMode0600() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try ServerSigning.load(dataDirectory: directory)
        let path = directory + "/" + ServerSigning.keyFileName
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(info.st_size == 32)
        let second = try ServerSigning.load(dataDirectory: directory)
        #expect(second.publicKeyHex == first.publicKeyHex && second.rotations.isEmpty)
        let signature = first.sign(hash: String(repeating: "cd", count: 32), code: "K1")
        #expect(signature.key == first.fingerprint)
        #expect(Ed25519.verify(publicKey: second.key.publicKey,
                               message: RecordSigning.recordMessage(code: "K1", hash: String(repeating: "cd", count: 32)),
                               signature: Hex.decode(signature.signature)!))
        // A damaged key file is refused, never silently replaced.
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
        #expect(throws: SigningKeyError.self) { try ServerSigning.load(dataDirectory: directory) }
    }

    @Test func aRotationIsSignedByTheOldKeyAndReadBack() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let original = try ServerSigning.load(dataDirectory: directory)
        let (old, new) = try ServerSigning.rotate(dataDirectory: directory, at: 1_000)
        #expect(old.publicKeyHex == original.publicKeyHex && new.publicKeyHex != old.publicKeyHex)
        let loaded = try ServerSigning.load(dataDirectory: directory)
        #expect(loaded.publicKeyHex == new.publicKeyHex)
        #expect(loaded.rotations == [KeyRotation.make(old: original.key, new: new.key.publicKey, at: 1_000)])
        var info = stat()
        #expect(stat(directory + "/" + ServerSigning.keyFileName, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let (_, third) = try ServerSigning.rotate(dataDirectory: directory, at: 2_000)
        #expect(try ServerSigning.load(dataDirectory: directory).rotations.count == 2 && third.rotations.count == 2)
    }

    @Test func clusterInstancesDeriveOneKeyFromTheClusterKey() {
        let clusterKey = [UInt8](repeating: 7, count: 32)
        #expect(ServerSigning.derived(clusterKey: clusterKey).publicKeyHex == ServerSigning.derived(clusterKey: clusterKey).publicKeyHex)
        #expect(ServerSigning.derived(clusterKey: clusterKey).publicKeyHex != ServerSigning.derived(clusterKey: [UInt8](repeating: 8, count: 32)).publicKeyHex)
    }
}
