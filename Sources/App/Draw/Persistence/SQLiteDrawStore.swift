import DrawRoomCore
import DrawEngine
import Storage

/// Draw records in the embedded SQLite database, on the storage thread.
struct SQLiteDrawStore: DrawRecordStore {
    let storage: StorageQueue
    let audit: DrawAuditLog

    func append(_ batch: RecordBatch, to code: String, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let audit = self.audit
        storage.async({ database in
            try DrawPersistence.append(batch.records, code: code, config: batch.config, clearedThrough: batch.clearedThrough,
                                       audit: batch.audit.map { (audit, $0) }, checkin: batch.checkin,
                                       seed: batch.committedSeed, rolling: batch.rolling, in: database)
        }, completion: completion)
    }

    func chain(of code: String, completion: @escaping @Sendable (Result<StoredChain, any Error>) -> Void) {
        storage.async({ database in
            guard let row = try database.loadDraw(code: code) else {
                throw StorageError(.corrupt, detail: "draw \(code) is not stored")
            }
            let records = try database.loadRecords(drawCode: code).map { stored in
                do {
                    var record = try DrawRecord(text: stored.json)
                    if let signature = stored.signature, let key = stored.signatureKey {
                        record.signature = RecordSignature(key: key, signature: signature)
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
