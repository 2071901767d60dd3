/// `tombola host-link CODE` in cluster mode: a new host key's hash replaces the draw's in
/// `{d:CODE}:meta` (`hostKeyHash`), and every instance hears the draw's code on
/// `tombola:host-keys` in the same step, reads the new hash and refuses the old key from then
/// on (docs/CLUSTER.md, *Host link*). Only the hash is stored or sent; never the key.
public enum HostKeyReset {
    /// The channel on which every instance hears that a draw's host key changed.
    public static let channel = "tombola:host-keys"

    /// KEYS: meta. ARGV: the new hash, the channel, the code. → 1 when the draw exists and its
    /// hash is replaced (and announced), 0 when there is no such draw (nothing written).
    static let script = """
        if redis.call('HEXISTS', KEYS[1], 'hostKeyHash') == 0 then return 0 end
        redis.call('HSET', KEYS[1], 'hostKeyHash', ARGV[1])
        redis.call('PUBLISH', ARGV[2], ARGV[3])
        return 1
        """

    /// Replaces draw `code`'s host key hash with `hash` and announces it. Succeeds with whether
    /// the draw exists. Loop only (the client's).
    public static func replace(code: String, hash: String, on client: RedisClient,
                               _ completion: @escaping (Result<Bool, ClusterError>) -> Void) {
        // A one-shot EVAL: a RedisScript made here would be gone before Redis answered its
        // SCRIPT LOAD, so the SHA-1 it learned would be thrown away with it.
        RedisScript.runOnce(script, on: client, keys: [RedisDrawKeys(code: code).meta],
                            arguments: [Array(hash.utf8), Array(channel.utf8), Array(code.utf8)]) { result in
            completion(result.mapError(ClusterError.init).flatMap { reply in
                guard let flag = reply.integer else { return .failure(.unexpectedReply("host key reset: \(reply)")) }
                return .success(flag == 1)
            })
        }
    }
}
