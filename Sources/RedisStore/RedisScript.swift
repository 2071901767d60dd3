/// A Lua script run with EVALSHA, falling back to EVAL when Redis answers NOSCRIPT (after a
/// restart or SCRIPT FLUSH; EVAL also puts it back in Redis's cache). The SHA-1 is learned
/// from SCRIPT LOAD the first time, so nothing here hashes. Until it is known the script goes
/// out as EVAL at once (SCRIPT LOAD rides ahead of it), so a run reaches Redis in the order it
/// was issued relative to the client's other commands (the cluster relies on that: a draw's
/// rolling inputs are stored before its first tick is published).
///
/// Loop-confined through the client it runs on.
public final class RedisScript {
    public let source: String
    private var sha: String?
    private var loading = false

    public init(_ source: String) {
        self.source = source
    }

    /// Runs the script with `keys` and `arguments` on `client`. Loop only.
    public func run(
        on client: RedisClient, keys: [String], arguments: [[UInt8]], timeout: Duration? = nil,
        _ completion: @escaping (Result<RedisReply, RedisError>) -> Void
    ) {
        let tail = [Array(String(keys.count).utf8)] + keys.map { Array($0.utf8) } + arguments
        guard let sha else {
            if !loading {
                loading = true
                client.send(["SCRIPT", "LOAD", source], timeout: timeout) { [weak self] result in
                    guard let self else { return }
                    self.loading = false
                    if case .success(let reply) = result, let sha = reply.string { self.sha = sha }
                }
            }
            eval(tail, client, timeout, completion)
            return
        }
        evalsha(sha, tail, client, timeout, completion)
    }

    /// Runs `source` once with EVAL, for a caller that keeps no script object (the one-shot
    /// `tombola host-link`): there is no object to remember a SHA-1 in, so no SCRIPT LOAD is sent.
    public static func runOnce(
        _ source: String, on client: RedisClient, keys: [String], arguments: [[UInt8]], timeout: Duration? = nil,
        _ completion: @escaping (Result<RedisReply, RedisError>) -> Void
    ) {
        let tail = [Array(String(keys.count).utf8)] + keys.map { Array($0.utf8) } + arguments
        client.send([Array("EVAL".utf8), Array(source.utf8)] + tail, timeout: timeout, completion)
    }

    private func evalsha(
        _ sha: String, _ tail: [[UInt8]], _ client: RedisClient, _ timeout: Duration?,
        _ completion: @escaping (Result<RedisReply, RedisError>) -> Void
    ) {
        client.send([Array("EVALSHA".utf8), Array(sha.utf8)] + tail, timeout: timeout) { [weak self] result in
            if case .failure(let error) = result, error.serverCode == "NOSCRIPT", let self {
                self.eval(tail, client, timeout, completion)
            } else {
                completion(result)
            }
        }
    }

    private func eval(
        _ tail: [[UInt8]], _ client: RedisClient, _ timeout: Duration?,
        _ completion: @escaping (Result<RedisReply, RedisError>) -> Void
    ) {
        client.send([Array("EVAL".utf8), Array(source.utf8)] + tail, timeout: timeout, completion)
    }
}
