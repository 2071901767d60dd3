import DrawRoomCore
import DrawEngine
import Storage

/// Draw records in the embedded SQLite database, on the storage thread.
struct SQLiteDrawStore: DrawRecordStore {
    let storage: StorageQueue
    let audit: DrawAuditLog
    /// Signs each record as it is stored (issue #47); nil: unsigned.
    let signer: RecordSigner?

    func append(_ batch: RecordBatch, to code: String, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let audit = self.audit
        let storage = self.storage
        storage.async({ database in
            try DrawPersistence.append(batch.records, code: code, config: batch.config, clearedThrough: batch.clearedThrough,
                                       audit: batch.audit.map { (audit, $0) }, checkin: batch.checkin,
                                       seed: batch.committedSeed, rolling: batch.rolling, signer: signer, in: database)
        }, completion: { result in
            // A round's record stored: its chain head is time-stamped outside (`--tsa`, issue #47).
            if case .success = result { ServerTimeStamping.stored(batch.records, code: code, storage: storage) }
            completion(result)
        })
    }

    func chain(of code: String, completion: @escaping @Sendable (Result<StoredChain, any Error>) -> Void) {
        storage.async({ database in
            guard let row = try database.loadDraw(code: code) else {
                throw StorageError(.corrupt, detail: "draw \(code) is not stored")
            }
            let stamps = Dictionary(try database.loadTimeStamps(drawCode: code).map { ($0.index, $0) }) { first, _ in first }
            let records = try database.loadRecords(drawCode: code).map { stored in
                do {
                    var record = try DrawRecord(text: stored.json)
                    if let signature = stored.signature, let key = stored.signatureKey {
                        record.signature = RecordSignature(key: key, signature: signature)
                    }
                    if let stamp = stamps[stored.index], stamp.hash == record.hash {
                        record.timeStamp = RecordTimeStamp(tsa: stamp.tsa, response: stamp.response)
                    }
                    return record
                } catch let error as RecordError {
                    throw StorageError(.corrupt, detail: "record \(stored.index): \(error.reason)")
                }
            }
            return StoredChain(configJSON: row.configJSON, records: records)
        }, completion: completion)
    }

    func errorCode(for error: any Error) -> String {
        DrawPersistence.errorCode(error)
    }
}
