import ClusterCore
import Crypto
import Dispatch
import Foundation
import DrawEngine
import JSON
import Locking
import Posix
import RedisStore
import Server

/// The hand-overs of a cluster's record-signing key (issue #47, docs/FAIRNESS.md §17,
/// docs/CLUSTER.md): the key is derived from the cluster key, so it changes with it; `tombola
/// rotate-signing-key --redis URL --cluster-key OLD --new-cluster-key NEW` has the old key sign
/// the new one and appends that hand-over to the Redis list `tombola:signing-rotations` (oldest
/// first). Each instance reads the list at start-up and carries it in every export and in `GET
/// /api/server/key`, so records signed before the change still verify.
public enum ClusterSigningRotations {
    public static let key = "tombola:signing-rotations"

    /// The rotations an instance signing with `signer`'s key carries: the whole list when its last
    /// hand-over is to that key, else none (and why: the cluster key changed without its
    /// hand-over on the record, or this instance runs an older key).
    static func chain(_ texts: [String], for signer: RecordSigner) -> (rotations: [KeyRotation], problem: String?) {
        let rotations = texts.compactMap { (try? JSONValue.parse($0)).flatMap(KeyRotation.init(json:)) }
        guard rotations.count == texts.count else { return ([], "\(key) holds an unreadable hand-over") }
        guard let last = rotations.last else { return ([], nil) }
        guard last.new == signer.publicKeyHex else {
            return ([], "\(key) does not end with a hand-over to this instance's key \(RecordSigning.grouped(signer.fingerprint))"
                    + " (the cluster key changed without tombola rotate-signing-key, or this instance runs an old one)")
        }
        return (rotations, nil)
    }

    /// A cluster key file's key (32 bytes, or 64 hex digits), as `--cluster-key` reads it.
    public static func readKeyFile(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).flatMap { ServerOptions.clusterKey(Array($0)) }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Hands the signing key of `settings.key` over to the one of `newClusterKey`: the old key signs
    /// the hand-over, appended to the list (refused when the list's last hand-over is not to the old
    /// key: a rotation chain never forks). Returns the old and the new signer.
    public static func rotate(cluster settings: ClusterSettings, newClusterKey: [UInt8], at: Int64) throws(Failure)
        -> (old: RecordSigner, new: RecordSigner) {
        let old = ServerSigning.derived(clusterKey: settings.key)
        let next = ServerSigning.derived(clusterKey: newClusterKey)
        guard old.publicKeyHex != next.publicKeyHex else { throw Failure(description: "the new cluster key is the old one") }
        let group: EventLoopGroup
        do { group = try EventLoopGroup(loopCount: 1) } catch { throw Failure(description: "\(error)") }
        let locator = settings.sentinel.map { RedisPrimaryLocator(settings: $0, loop: group.loops[0]) }
        let client = RedisClient(endpoint: settings.endpoint, loop: group.loops[0], locator: locator, requireDurable: false)
        client.start()
        defer {
            locator?.close()
            client.close()
            group.shutdown()
        }
        let outcome = Lock<Result<[KeyRotation], Failure>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let unreachable = Failure(description: "cannot reach Redis at \(settings.redisDescription)")
        @Sendable func finish(_ result: Result<[KeyRotation], Failure>) {
            outcome.withLock { $0 = result }
            done.signal()
        }
        group.loops[0].execute {
            client.send(["LRANGE", key, "0", "-1"]) { reply in
                guard case .success(let list) = reply else { return finish(.failure(unreachable)) }
                let texts = (list.array ?? []).compactMap(\.string)
                let rotations = texts.compactMap { (try? JSONValue.parse($0)).flatMap(KeyRotation.init(json:)) }
                if rotations.count != texts.count { return finish(.failure(Failure(description: "\(key) holds an unreadable hand-over"))) }
                if let last = rotations.last, last.new != old.publicKeyHex {
                    return finish(.failure(Failure(description: "the last hand-over in \(key) is not to the key of --cluster-key:"
                                                   + " rotate from the cluster key the instances run now")))
                }
                let rotation = KeyRotation.make(old: old.key, new: next.key.publicKey, at: at)
                client.send(["RPUSH", key, rotation.json.canonicalString]) { pushed in
                    guard case .success = pushed else { return finish(.failure(unreachable)) }
                    finish(.success(rotations + [rotation]))
                }
            }
        }
        done.wait()
        switch outcome.withLock({ $0 })! {
        case .success(let rotations): return (old, RecordSigner(key: next.key, rotations: rotations))
        case .failure(let failure): throw failure
        }
    }
}
