import DrawRoomCore
import ClusterCore
import RedisStore
import Crypto
import DrawEngine
import JSON
import Posix
import Server

/// The owner's writes to the round log and anyone's read of it (docs/CLUSTER.md, *Ownership*).
/// The lease and the takeover are `ClusterNodeState`'s; this is the I/O they ask for.
extension ClusterDrawNode {
    // MARK: The round log (owner's store)

    /// Appends `batch` with the lease's fencing token; nothing is announced before this returns.
    func append(_ batch: RecordBatch, completion: @escaping (Result<Void, any Error>) -> Void) {
        if batch.checkin != nil { return appendCheckin(batch, completion: completion) }  // ClusterDrawNode+Checkin
        guard batch.config != nil || !batch.records.isEmpty else { return completion(.success(())) }  // an audit entry alone
        guard let lease = state.lease, lease.isValid(margin: settings.safetyMargin) else {
            return completion(.failure(ClusterError.fenced("this instance does not hold the lease of draw \(code)")))
        }
        let commitment: String? = batch.committedSeed?.commitment
        let records = batch.records.map { record -> LogRecord in
            var entry = LogRecord(index: record.index, hash: record.hash, prev: record.prev, json: record.canonicalJSON,
                                  idempotencyKey: "")
            if case .commit(let committed, _) = record.body, committed == commitment, let seed = batch.committedSeed {
                entry.seal = SeedSeal.seal(seed, key: settings.key, code: code)
            }
            // Signed as it is stored, beside it (issue #47, docs/FAIRNESS.md §17).
            if let signature = runtime.roomSettings.signer?.sign(hash: record.hash, code: code) {
                entry.signature = signature.key + ":" + signature.signature
            }
            return entry
        }
        nextBatch += 1
        // A record index is taken once: a retry of a batch whose outcome was unknown learns where it landed.
        let key = records.first.map { "r\($0.index)" } ?? "c\(lease.token).\(nextBatch)"
        // The command's answer is kept with its records: resent to the next owner, it gets the same answer.
        let answer = batch.answer.map {
            KeptAnswer(client: $0.client, seq: $0.seq, text: ClusterReply.kept($0.reply), ttl: settings.answerTTL, keep: settings.answersKept)
        }
        store.appendBatch(records, config: batch.config, idempotencyKey: key, lease: lease, answer: answer) { [self] result in
            switch result {
            case .success(let receipt):
                if let answer = batch.answer { keptWithRecords["\(answer.client)\t\(answer.seq)"] = answer.reply }
                feed(.logAdvanced(epoch: receipt.epoch, offset: receipt.offset))
                completion(.success(()))
            case .failure(let error):
                if case .fenced = error { feed(.gaveUp(token: nil, reason: "the round log refused its token (\(error))", release: false)) }
                completion(.failure(error))
            }
        }
    }

    /// The draw's settings and every record, from Redis.
    func readChain(_ completion: @escaping (Result<ClusterChain, any Error>) -> Void) {
        store.client.send(["HGET", keys.meta, "config"]) { [self] configReply in
            let config: String
            switch configReply {
            case .success(let reply):
                guard let text = reply.string else { return completion(.failure(ClusterError.unexpectedReply("no settings for draw \(code)"))) }
                config = text
            case .failure(let error):
                return completion(.failure(ClusterError.unavailable(error)))
            }
            store.catchUp(draw: code, from: ChainCursor()) { result in
                switch result {
                case .failure(let error):
                    completion(.failure(error))
                case .success(let (cursor, entries)):
                    self.readTimeStamps { stamps in
                        self.chainRead(entries, stamps: stamps, config: config, cursor: cursor, completion)
                    }
                }
            }
        }
    }

    /// The owner keeps a TSA's answer beside the round log (`--tsa`, issue #47). Loop only.
    func saveTimeStamp(index: Int, hash: String, _ stamp: RecordTimeStamp) {
        let value = "\(hash) \(stamp.tsa) \(Hex.encode(stamp.response))"
        store.client.send(["HSET", keys.timeStamps, String(index), value]) { [code] reply in
            if case .failure(let error) = reply {
                Log.error("draw.timestamp_failed", "draw \(code): the time-stamp of record \(index) was not kept: \(error)",
                          fields: ["draw": .string(code), "record": .int(Int64(index))])
            }
        }
    }

    /// Every kept time-stamp by record index (none when Redis cannot say: the export then has none).
    private func readTimeStamps(_ completion: @escaping ([Int: (hash: String, stamp: RecordTimeStamp)]) -> Void) {
        store.client.send(["HGETALL", keys.timeStamps]) { reply in
            var stamps: [Int: (hash: String, stamp: RecordTimeStamp)] = [:]
            let fields = (try? reply.get())?.array ?? []
            for pair in stride(from: 0, to: fields.count - 1, by: 2) {
                guard let index = fields[pair].string.flatMap({ Int($0) }), let value = fields[pair + 1].string else { continue }
                let parts = value.split(separator: " ", maxSplits: 2).map(String.init)
                guard parts.count == 3, let response = Hex.decode(parts[2]) else { continue }
                stamps[index] = (parts[0], RecordTimeStamp(tsa: parts[1], response: response))
            }
            completion(stamps)
        }
    }

    /// The records of the round log with their signatures and kept time-stamps.
    private func chainRead(_ entries: [LogEntry], stamps: [Int: (hash: String, stamp: RecordTimeStamp)], config: String, cursor: ChainCursor,
                           _ completion: @escaping (Result<ClusterChain, any Error>) -> Void) {
        var records: [DrawRecord] = []
        var seal: (String, String)?
        for entry in entries {
            guard var record = try? DrawRecord(text: entry.json) else {
                return completion(.failure(ClusterError.unexpectedReply("record \(entry.index) of draw \(self.code) unreadable")))
            }
            if case .commit(let commitment, _) = record.body { seal = entry.seal.isEmpty ? nil : (entry.seal, commitment) }
            let signature = entry.signature.split(separator: ":")
            if signature.count == 2 { record.signature = RecordSignature(key: String(signature[0]), signature: String(signature[1])) }
            if let kept = stamps[record.index], kept.hash == record.hash { record.timeStamp = kept.stamp }
            records.append(record)
        }
        completion(.success(ClusterChain(configJSON: config, records: records, pendingSeal: seal,
                                         epoch: cursor.epoch ?? "", offset: cursor.offset ?? "")))
    }
}
