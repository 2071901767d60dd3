import Posix

extension RedisClient {
    /// Runs `write` (one command or script run, issued at once by `write`) and, when
    /// `options.replicaAcks` > 0, pipelines `WAIT replicaAcks replicaTimeout` right behind it in
    /// the same round trip: the write counts as done only once that many replicas have it.
    /// Otherwise it fails with `.notReplicated` (it ran on the primary and may be lost with it:
    /// the caller must not announce it) or with the WAIT's transport failure (outcome unknown).
    ///
    /// Replies come in order, so the WAIT's reply covers the write unless the write's reply came
    /// after it (a script re-sent as EVAL after NOSCRIPT): then a second WAIT follows. A script
    /// refusal passes through at once, except `DUPLICATE` (the write landed earlier, perhaps not
    /// yet on a replica: the scripts rewrite the key they found, so this WAIT covers it too).
    /// Loop only.
    func replicated(
        _ write: (@escaping (Result<RedisReply, RedisError>) -> Void) -> Void,
        _ completion: @escaping (Result<RedisReply, RedisError>) -> Void
    ) {
        precondition(loop.inEventLoop, "RedisClient used off its loop")
        let required = options.replicaAcks
        guard required > 0 else { return write(completion) }
        final class Pending {
            var written: Result<RedisReply, RedisError>?
            var waitCameFirst = false
        }
        let pending = Pending()
        let wait: [String] = ["WAIT", String(required), String(options.replicaTimeout.milliseconds)]
        let waitTimeout = options.replicaTimeout + options.commandTimeout
        func judge(_ waited: Result<RedisReply, RedisError>) {
            guard let written = pending.written else {
                pending.waitCameFirst = true
                return
            }
            switch written {
            case .failure(let error) where error.serverCode != "DUPLICATE":
                completion(written)
            default:
                switch waited {
                case .success(let reply) where (reply.integer ?? 0) >= Int64(required):
                    completion(written)
                case .success(let reply):
                    completion(.failure(.notReplicated(acknowledged: Int(reply.integer ?? 0), required: required)))
                case .failure(let error):
                    completion(.failure(error))
                }
            }
        }
        write { [weak self] result in
            pending.written = result
            guard pending.waitCameFirst else { return }
            guard let self else { return completion(.failure(.closed)) }
            self.send(wait, timeout: waitTimeout) { judge($0) }
        }
        send(wait, timeout: waitTimeout) { judge($0) }
    }
}

extension RedisScript {
    /// `run` through `RedisClient.replicated`. Loop only.
    public func runReplicated(
        on client: RedisClient, keys: [String], arguments: [[UInt8]],
        _ completion: @escaping (Result<RedisReply, RedisError>) -> Void
    ) {
        client.replicated({ done in self.run(on: client, keys: keys, arguments: arguments, done) }, completion)
    }
}
