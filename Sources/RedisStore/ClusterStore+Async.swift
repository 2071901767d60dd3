/// The store's operations from any thread: each hops to the client's loop and waits.
extension ClusterStore {
    public func acquireLease(draw: String, owner: String, ttl: Duration) async -> Result<LeaseAcquisition, ClusterError> {
        await client.onLoop { done in self.acquireLease(draw: draw, owner: owner, ttl: ttl, done) }
    }

    public func renewLease(_ lease: OwnerLease, ttl: Duration) async -> Result<OwnerLease, ClusterError> {
        await client.onLoop { done in self.renewLease(lease, ttl: ttl, done) }
    }

    public func releaseLease(_ lease: OwnerLease) async -> Result<Bool, ClusterError> {
        await client.onLoop { done in self.releaseLease(lease, done) }
    }

    public func append(_ record: LogRecord, lease: OwnerLease) async -> Result<AppendReceipt, ClusterError> {
        await client.onLoop { done in self.append(record, lease: lease, done) }
    }

    public func appendBatch(_ records: [LogRecord], config: String?, idempotencyKey: String,
                            lease: OwnerLease, answer: KeptAnswer? = nil) async -> Result<AppendReceipt, ClusterError> {
        await client.onLoop { done in
            self.appendBatch(records, config: config, idempotencyKey: idempotencyKey, lease: lease, answer: answer, done)
        }
    }

    public func readLog(draw: String, from start: String = "-", count: Int = 1000) async -> Result<LogPage, ClusterError> {
        await client.onLoop { done in self.readLog(draw: draw, from: start, count: count, done) }
    }

    public func catchUp(draw: String, from cursor: ChainCursor, pageSize: Int = 1000) async -> Result<(ChainCursor, [LogEntry]), CatchUpError> {
        await client.onLoop { (done: @escaping (Result<(ChainCursor, [LogEntry]), CatchUpError>) -> Void) in
            self.catchUp(draw: draw, from: cursor, pageSize: pageSize, done)
        }
    }

    public func setIfOwner(_ key: String, value: [UInt8], lease: OwnerLease) async -> Result<Bool, ClusterError> {
        await client.onLoop { done in self.setIfOwner(key, value: value, lease: lease, done) }
    }

    public func rememberAnswer(_ answer: KeptAnswer, alsoSet: (key: String, value: [UInt8])? = nil,
                               lease: OwnerLease) async -> Result<Bool, ClusterError> {
        await client.onLoop { done in self.rememberAnswer(answer, alsoSet: alsoSet, lease: lease, done) }
    }

    public func answers(draw: String, client: String) async -> Result<[Int64: String], ClusterError> {
        await self.client.onLoop { done in self.answers(draw: draw, client: client, done) }
    }

    public func publish(draw: String, payload: [UInt8]) async -> Result<Int64, ClusterError> {
        await client.onLoop { done in self.publish(draw: draw, payload: payload, done) }
    }

    public func publishTick(seq: Int64, payload: [UInt8], lease: OwnerLease) async -> Result<Bool, ClusterError> {
        await client.onLoop { done in self.publishTick(seq: seq, payload: payload, lease: lease, done) }
    }

    public func checkDurability(allowUnsafe: Bool = false) async -> Result<DurabilityReport, ClusterError> {
        await client.onLoop { done in self.checkDurability(allowUnsafe: allowUnsafe, done) }
    }
}
