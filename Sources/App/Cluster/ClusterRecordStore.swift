import DrawRoomCore
import ClusterCore
import DrawEngine

/// The owner room's store in cluster mode: the round log in Redis through the node, which
/// holds the lease whose fencing token every append carries.
struct ClusterRecordStore: DrawRecordStore {
    let node: ClusterDrawNode

    func append(_ batch: RecordBatch, to code: String, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let node = self.node
        node.loop.execute {
            node.append(batch) { result in
                // The batch's audit entry (or an audit entry alone) once its records are stored:
                // its own script, after them (ClusterAuditLog).
                if case .success = result, let audit = batch.audit {
                    if node.loop.inEventLoop { node.recordAudit(audit) } else { node.loop.execute { node.recordAudit(audit) } }
                }
                // A round's record stored: its chain head is time-stamped outside (`--tsa`, issue #47),
                // kept in Redis beside the round log for every instance's export.
                if case .success = result {
                    ServerTimeStamping.stored(batch.records, code: code) { index, hash, stamp in
                        node.loop.execute { node.saveTimeStamp(index: index, hash: hash, stamp) }
                    }
                }
                completion(result)
            }
        }
    }

    func chain(of code: String, completion: @escaping @Sendable (Result<StoredChain, any Error>) -> Void) {
        let node = self.node
        node.loop.execute {
            node.readChain { completion($0.map { StoredChain(configJSON: $0.configJSON, records: $0.records) }) }
        }
    }

    func errorCode(for error: any Error) -> String { "cluster_unavailable" }
}
