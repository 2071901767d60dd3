import Posix

/// The cluster's shared state in Redis for any number of draws: owner leases with fencing
/// tokens, the round log (one Stream per draw, appended through one checking Lua script),
/// reading the log back, and publishing on a draw's channel. Knows no draw rules: records
/// arrive as hashes and canonical JSON.
///
/// The callback methods run on the client's loop and call back there. The `async` mirrors
/// may be called from any thread.
///
/// `@unchecked Sendable`: the scripts' cached SHA-1s are touched only on `client.loop`.
public final class ClusterStore: @unchecked Sendable {
    public let client: RedisClient
    private let acquireScript = RedisScript(ClusterScripts.acquire)
    private let renewScript = RedisScript(ClusterScripts.renew)
    private let releaseScript = RedisScript(ClusterScripts.release)
    private let appendScript = RedisScript(ClusterScripts.append)
    private let readScript = RedisScript(ClusterScripts.read)
    private let batchScript = RedisScript(ClusterScripts.appendBatch)
    private let setIfOwnerScript = RedisScript(ClusterScripts.setIfOwner)
    private let rememberScript = RedisScript(ClusterScripts.rememberAnswer)
    private let publishTickScript = RedisScript(ClusterScripts.publishTick)

    public init(client: RedisClient) {
        self.client = client
    }

    private var loop: EventLoop { client.loop }

    // MARK: Lease

    /// Takes the draw's lease for `ttl` if nobody holds it; the fencing counter is
    /// incremented in the same script, so every acquisition gets a larger token.
    public func acquireLease(
        draw: String, owner: String, ttl: Duration,
        _ completion: @escaping (Result<LeaseAcquisition, ClusterError>) -> Void
    ) {
        precondition(!owner.isEmpty && !owner.contains(":"), "an owner id is non-empty and has no ':'")
        let keys = RedisDrawKeys(code: draw)
        let sentAt = MonotonicClock.nanoseconds()
        acquireScript.runReplicated(on: client, keys: [keys.lease, keys.fence], arguments: [bytes(owner), bytes(ttl.milliseconds)]) { result in
            completion(result.mapError(ClusterError.init).flatMap { reply in
                guard let parts = reply.array, parts.count == 2, let flag = parts[0].integer else {
                    return .failure(.unexpectedReply("acquire: \(reply)"))
                }
                if flag == 1, let token = parts[1].integer {
                    let validUntil = sentAt &+ UInt64(ttl.wholeNanoseconds)
                    return .success(.acquired(OwnerLease(draw: draw, owner: owner, token: token, validUntil: validUntil)))
                }
                guard let holder = parts[1].string else { return .failure(.unexpectedReply("acquire: \(reply)")) }
                return .success(.held(by: holder))
            })
        }
    }

    /// Extends a lease we hold by `ttl`; `.fenced` when it is no longer ours (it expired, and
    /// perhaps another instance took it): the owner must stop at once.
    public func renewLease(_ lease: OwnerLease, ttl: Duration, _ completion: @escaping (Result<OwnerLease, ClusterError>) -> Void) {
        let keys = RedisDrawKeys(code: lease.draw)
        let sentAt = MonotonicClock.nanoseconds()
        renewScript.run(on: client, keys: [keys.lease], arguments: [bytes(lease.value), bytes(ttl.milliseconds)]) { result in
            completion(result.mapError(ClusterError.init).flatMap { reply in
                switch reply.integer {
                case 1?:
                    var renewed = lease
                    renewed.validUntil = sentAt &+ UInt64(ttl.wholeNanoseconds)
                    return .success(renewed)
                case 0?:
                    return .failure(.fenced("the lease of token \(lease.token) is no longer held"))
                default:
                    return .failure(.unexpectedReply("renew: \(reply)"))
                }
            })
        }
    }

    /// Gives the lease up (a clean shutdown), so another instance need not wait for expiry.
    /// Succeeds with false when it was not ours any more.
    public func releaseLease(_ lease: OwnerLease, _ completion: @escaping (Result<Bool, ClusterError>) -> Void) {
        let keys = RedisDrawKeys(code: lease.draw)
        releaseScript.run(on: client, keys: [keys.lease], arguments: [bytes(lease.value)]) { result in
            completion(result.mapError(ClusterError.init).map { $0.integer == 1 })
        }
    }

    // MARK: Round log

    /// Appends `record` to the draw's log if `lease` is current, `record.prev` is the last
    /// stored hash, and the idempotency key is new (see `ClusterScripts.append`). Nothing may
    /// be announced before this succeeds. After `.unavailable` the outcome is unknown:
    /// retrying with the same key answers `.duplicate(offset)` if the first attempt landed.
    public func append(_ record: LogRecord, lease: OwnerLease, _ completion: @escaping (Result<AppendReceipt, ClusterError>) -> Void) {
        let keys = RedisDrawKeys(code: lease.draw)
        let arguments: [[UInt8]] = [
            bytes(lease.value), bytes(lease.token), bytes(record.idempotencyKey), bytes(record.index),
            bytes(record.hash), bytes(record.prev), Array(record.json.utf8), bytes(LogRecord.genesisPrev),
            bytes(Self.newEpoch()),
        ]
        appendScript.runReplicated(on: client, keys: [keys.lease, keys.fence, keys.log, keys.idempotency, keys.epoch], arguments: arguments) { result in
            switch result {
            case .success(let reply):
                guard let parts = reply.array, parts.count == 2, let offset = parts[0].string, let epoch = parts[1].string else {
                    return completion(.failure(.unexpectedReply("append: \(reply)")))
                }
                completion(.success(AppendReceipt(offset: offset, epoch: epoch)))
            case .failure(.server(let message)):
                completion(.failure(Self.refusal(message)))
            case .failure(let error):
                completion(.failure(.unavailable(error)))
            }
        }
    }

    /// Appends `records` (consecutive links; may be empty) and, when given, the draw's new
    /// settings `config`, all or nothing, under the same checks as `append`; the idempotency
    /// key covers the whole batch. Succeeds with the last record's offset ("" for none).
    public func appendBatch(
        _ records: [LogRecord], config: String?, idempotencyKey: String, lease: OwnerLease, answer: KeptAnswer? = nil,
        _ completion: @escaping (Result<AppendReceipt, ClusterError>) -> Void
    ) {
        let keys = RedisDrawKeys(code: lease.draw)
        var arguments: [[UInt8]] = [
            bytes(lease.value), bytes(lease.token), bytes(idempotencyKey), bytes(LogRecord.genesisPrev),
            bytes(Self.newEpoch()), Array((config ?? "").utf8), bytes(records.count),
        ]
        for record in records {
            arguments += [bytes(record.index), bytes(record.hash), bytes(record.prev), Array(record.json.utf8), bytes(record.seal),
                          bytes(record.signature)]
        }
        if let answer { arguments += answer.arguments }
        batchScript.runReplicated(on: client, keys: [keys.lease, keys.fence, keys.log, keys.idempotency, keys.epoch, keys.meta, keys.acks],
                        arguments: arguments) { result in
            switch result {
            case .success(let reply):
                guard let parts = reply.array, parts.count == 2, let offset = parts[0].string, let epoch = parts[1].string else {
                    return completion(.failure(.unexpectedReply("append batch: \(reply)")))
                }
                completion(.success(AppendReceipt(offset: offset, epoch: epoch)))
            case .failure(.server(let message)):
                completion(.failure(Self.refusal(message)))
            case .failure(let error):
                completion(.failure(.unavailable(error)))
            }
        }
    }

    /// Sets `key` (one of the draw's keys) to `value` only if `lease` is still held with a
    /// current token; succeeds with whether it was set.
    public func setIfOwner(_ key: String, value: [UInt8], lease: OwnerLease, _ completion: @escaping (Result<Bool, ClusterError>) -> Void) {
        let keys = RedisDrawKeys(code: lease.draw)
        setIfOwnerScript.runReplicated(on: client, keys: [keys.lease, keys.fence, key], arguments: [bytes(lease.value), bytes(lease.token), value]) { result in
            completion(result.mapError(ClusterError.init).map { $0.integer == 1 })
        }
    }

    // MARK: Answers to host commands (dedup across owners)

    /// Keeps `answer` only while `lease` is held with a current token, and in the same step
    /// sets `alsoSet` (one of the draw's keys) when given. Succeeds with whether it was written
    /// (false: fenced).
    public func rememberAnswer(
        _ answer: KeptAnswer, alsoSet: (key: String, value: [UInt8])? = nil, lease: OwnerLease,
        _ completion: @escaping (Result<Bool, ClusterError>) -> Void
    ) {
        let keys = RedisDrawKeys(code: lease.draw)
        let arguments: [[UInt8]] = [bytes(lease.value), bytes(lease.token), alsoSet?.value ?? []] + answer.arguments
        rememberScript.runReplicated(on: client, keys: [keys.lease, keys.fence, keys.acks, alsoSet?.key ?? keys.rolling], arguments: arguments) { result in
            completion(result.mapError(ClusterError.init).map { $0.integer == 1 })
        }
    }

    /// The answers kept for host client `client` of draw `draw`: seq → answer (JSON text).
    public func answers(draw: String, client: String, _ completion: @escaping (Result<[Int64: String], ClusterError>) -> Void) {
        self.client.send([bytes("HGET"), bytes(RedisDrawKeys(code: draw).acks), bytes(client)]) { result in
            completion(result.mapError(ClusterError.init).map { reply in
                var answers: [Int64: String] = [:]
                for line in (reply.string ?? "").split(separator: "\n") {
                    guard let tab = line.firstIndex(of: "\t"), let seq = Int64(line[..<tab]) else { continue }
                    answers[seq] = String(line[line.index(after: tab)...])
                }
                return answers
            })
        }
    }

    /// Reads up to `count` entries of the draw's log from `start` (an offset, inclusive, or "-"),
    /// with the epoch read in the same step.
    public func readLog(draw: String, from start: String = "-", count: Int = 1000, _ completion: @escaping (Result<LogPage, ClusterError>) -> Void) {
        let keys = RedisDrawKeys(code: draw)
        // Behind Sentinel a record is read only once a replica has it (the read mark's INCR and
        // a WAIT): a record whose own WAIT failed is not shown by a reader either.
        let replicated = client.options.replicaAcks > 0
        let handle: (Result<RedisReply, RedisError>) -> Void = { result in
            completion(result.mapError(ClusterError.init).flatMap { reply in
                guard let parts = reply.array, parts.count == 2, let epoch = parts[0].string, let raw = parts[1].array else {
                    return .failure(.unexpectedReply("read: \(reply)"))
                }
                var entries: [LogEntry] = []
                entries.reserveCapacity(raw.count)
                for element in raw {
                    guard let entry = LogEntry(element) else { return .failure(.unexpectedReply("read: entry \(element)")) }
                    entries.append(entry)
                }
                return .success(LogPage(epoch: epoch, entries: entries))
            })
        }
        let arguments = [bytes(start), bytes(count)]
        if replicated {
            readScript.runReplicated(on: client, keys: [keys.log, keys.epoch, keys.readMark], arguments: arguments, handle)
        } else {
            readScript.run(on: client, keys: [keys.log, keys.epoch], arguments: arguments, handle)
        }
    }

    /// Reads everything after `cursor`, page by page, checking each page with it. Returns the
    /// advanced cursor and the new entries, or the first break found.
    public func catchUp(
        draw: String, from cursor: ChainCursor, pageSize: Int = 1000,
        _ completion: @escaping (Result<(ChainCursor, [LogEntry]), CatchUpError>) -> Void
    ) {
        var cursor = cursor
        var collected: [LogEntry] = []
        func step() {
            readLog(draw: draw, from: cursor.readStart, count: pageSize) { result in
                switch result {
                case .failure(let error):
                    completion(.failure(.store(error)))
                case .success(let page):
                    switch cursor.take(page) {
                    case .failure(let broken):
                        completion(.failure(.broken(broken)))
                    case .success(let entries):
                        collected += entries
                        if page.entries.count < pageSize || entries.isEmpty {
                            completion(.success((cursor, collected)))
                        } else {
                            step()
                        }
                    }
                }
            }
        }
        step()
    }

    public enum CatchUpError: Error, Sendable, Equatable {
        case store(ClusterError)
        case broken(ChainCursor.Break)
    }

    // MARK: Fan-out

    /// Publishes `payload` on the draw's channel; succeeds with the number of subscribed
    /// connections that received it (one per subscribed instance).
    public func publish(draw: String, payload: [UInt8], _ completion: @escaping (Result<Int64, ClusterError>) -> Void) {
        client.send([bytes("PUBLISH"), bytes(RedisDrawKeys(code: draw).channel), payload]) { result in
            completion(result.mapError(ClusterError.init).flatMap { reply in
                reply.integer.map { .success($0) } ?? .failure(.unexpectedReply("publish: \(reply)"))
            })
        }
    }

    /// Publishes a tick (`payload`) on the draw's channel and raises the draw's highest tick seq
    /// to `seq`, both only while `lease` is held with a current token: a stale owner's tick
    /// reaches nobody. Succeeds with whether it was published (false: fenced).
    public func publishTick(seq: Int64, payload: [UInt8], lease: OwnerLease, _ completion: @escaping (Result<Bool, ClusterError>) -> Void) {
        let keys = RedisDrawKeys(code: lease.draw)
        publishTickScript.run(on: client, keys: [keys.lease, keys.fence, keys.tickSeq],
                              arguments: [bytes(lease.value), bytes(lease.token), bytes(keys.channel), bytes(seq), payload]) { result in
            completion(result.mapError(ClusterError.init).map { $0.integer == 1 })
        }
    }

    // MARK: Helpers

    static func refusal(_ message: String) -> ClusterError {
        let code = message.prefix { $0 != " " }
        let detail = message.dropFirst(code.count).drop { $0 == " " }
        switch code {
        case "FENCED": return .fenced(String(detail))
        case "DUPLICATE": return .duplicate(offset: String(detail))
        case "CHAIN": return .chainMismatch(lastHash: String(detail))
        default: return .unexpectedReply(message)
        }
    }

    /// A fresh random epoch id: 128 bits in hex.
    static func newEpoch() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}

@inline(__always) func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
@inline(__always) func bytes(_ value: some BinaryInteger) -> [UInt8] { Array(String(value).utf8) }
