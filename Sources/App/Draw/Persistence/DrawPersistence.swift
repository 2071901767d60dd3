import DrawRoomCore
import ClusterCore
import RedisStore
import Server
import DrawEngine
import JSON
import Posix
import Storage

/// How a draw maps onto Storage rows. Every function runs on the storage thread.
enum DrawPersistence {
    static func row(_ record: DrawRecord, code: String, signer: RecordSigner? = nil) -> RecordRow {
        let round: Int
        switch record.body {
        case .round(let r): round = r.round
        case .void(let r, _, _): round = r
        case .pass(let r, _, _, _): round = r
        default: round = 0
        }
        var row = RecordRow(drawCode: code, index: record.index, round: round, kind: record.kind, json: record.canonicalJSON,
                            hash: record.hash, prevHash: record.prev, createdAt: Double(record.at) / 1000)
        // Signed as it is stored, beside it (issue #47, docs/FAIRNESS.md §17).
        if let signature = signer?.sign(hash: record.hash, code: code) {
            row.signature = signature.signature
            row.signatureKey = signature.key
        }
        return row
    }

    /// A checked-in entrant as SQLite stores it.
    static func row(_ entry: CheckinEntry, code: String) -> EntrantRow {
        EntrantRow(drawCode: code, publicID: entry.id, seq: entry.seq, name: entry.name,
                   fieldsJSON: JSONValue.object(entry.fields.mapValues { .string($0) }).canonicalString,
                   deviceHash: entry.device, joinedAt: Double(entry.joinedAt) / 1000)
    }

    /// Appends `records` (and optionally the new settings and Clear mark) in one synced
    /// transaction: all or nothing.
    /// `seed`: the seed behind a `commit` record among `records`, kept sealed (`pending_seeds`);
    /// `rolling`: what a Start froze, kept beside it. Both in the records' transaction. `signer`:
    /// the server's key, which signs each record as it is stored (issue #47).
    static func append(_ records: [DrawRecord], code: String, config: String? = nil, clearedThrough: Int? = nil,
                       audit: (log: DrawAuditLog, entry: AuditEntry)? = nil, checkin: CheckinWrite? = nil,
                       seed: Seed? = nil, rolling: RollingStart? = nil, signer: RecordSigner? = nil, in database: Database) throws {
        do {
            try database.transaction {
                for record in records { try database.appendRecord(row(record, code: code, signer: signer)) }
                if let seed, records.contains(where: { if case .commit(seed.commitment, _) = $0.body { true } else { false } }) {
                    try database.savePendingSeed(drawCode: code, commitment: seed.commitment,
                                                 sealed: SeedSeal.seal(seed, key: try database.seedKey(), code: code))
                }
                if let rolling {
                    let text = String(decoding: rolling.encoded, as: UTF8.self)
                    try database.savePendingRolling(drawCode: code, commitment: rolling.commitment, rolling: text)
                }
                if let checkin { try write(checkin, code: code, in: database) }
                if let config { try database.updateConfig(code: code, configJSON: config) }
                if let clearedThrough { try database.setClearedThrough(code: code, index: clearedThrough) }
                if let audit { try audit.log.append(audit.entry, code: code, at: Self.now, in: database) }
            }
        } catch {
            audit?.log.forget(code)
            throw error
        }
    }

    static var now: Int64 { Int64(WallClock.unixMilliseconds()) }

    /// Check-in rows (#14); inside `append`'s transaction.
    static func write(_ checkin: CheckinWrite, code: String, in database: Database) throws {
        let at = WallClock.unixMilliseconds() / 1000
        switch checkin {
        case .settings(let json):
            try database.saveCheckinSettings(drawCode: code, json: json)
        case .join(let inserts):
            for insert in inserts {
                try database.insertEntrant(row(insert.entry, code: code), uniqueValues: insert.uniques.map { ($0.field, $0.value) })
            }
        case .remove(let id, let reason, let settings):
            try database.removeEntrant(drawCode: code, publicID: id, reason: reason, at: at)
            try database.saveCheckinSettings(drawCode: code, json: settings)
        case .erase(let settings):
            try database.eraseEntrants(drawCode: code, at: at)
            try database.saveCheckinSettings(drawCode: code, json: settings)
        }
    }

    /// A draw's entrant book as stored (empty when it never used check-in).
    static func loadCheckin(code: String, in database: Database) throws -> CheckinBook {
        let settings = try database.loadCheckinSettings(drawCode: code).flatMap(CheckinSettings.init(stored:)) ?? CheckinSettings()
        let entries = try database.loadEntrants(drawCode: code).map { row in
            var fields = [String: String]()
            if let text = row.fieldsJSON, case .object(let members)? = try? JSONValue.parse(text) {
                for (key, value) in members { if let string = value.stringValue { fields[key] = string } }
            }
            return CheckinEntry(id: row.publicID, seq: row.seq, name: row.name, fields: fields, device: row.deviceHash,
                                joinedAt: Int64(row.joinedAt * 1000), removedReason: row.removedReason)
        }
        var book = CheckinBook(settings: settings, entries: entries)
        // Prizes handed over (issue 45) are audit entries `handover`: read back with the book.
        book.handovers = try database.loadAudit(drawCode: code, action: "handover").compactMap { row in
            (try? JSONValue.parse(row.detailJSON)).flatMap(Handover.init(auditDetail:))
        }
        return book
    }

    static func encode(_ config: DrawConfig) -> String {
        config.json.canonicalString
    }

    /// The settings as pages see them: without entrant ids.
    static func encodePublic(_ config: DrawConfig) -> String {
        config.publicJSON.canonicalString
    }

    static func decode(_ text: String) -> DrawConfig? {
        guard let json = try? JSONValue.parse(text) else { return nil }
        return try? DrawConfig(json: json)
    }

    /// A stored draw rebuilt: its settings and records, idle, without a pending commitment.
    /// The records are read and folded one at a time (each link checked), never all held at once.
    static func restore(_ row: DrawRow, in database: Database) throws -> Draw {
        guard let config = decode(row.configJSON) else { throw StorageError(.corrupt, detail: "stored settings unreadable") }
        var restorer: DrawRestorer
        do { restorer = try DrawRestorer(config: config) } catch {
            throw StorageError(.corrupt, detail: "history: \(error.code)")
        }
        try database.forEachRecord(drawCode: row.code) { index, json in
            let record: DrawRecord
            do { record = try DrawRecord(text: json) } catch let error as RecordError {
                throw StorageError(.corrupt, detail: "record \(index): \(error.reason)")
            }
            do { try restorer.add(record) } catch let error as DrawError {
                throw StorageError(.corrupt, detail: "history: \(error.code)")
            }
        }
        return restorer.finish()
    }

    /// The round a previous run started and never stopped (the server went down while it rolled),
    /// or nil: the draw's newest start/stop/restart audit entry is a `start` of the round the
    /// restored chain draws next (a stopped round's records and its `stop` entry are stored together).
    static func interruptedRound(code: String, next round: Int, in database: Database) throws -> Int? {
        guard let row = try database.latestAudit(drawCode: code, among: ["start", "stop", "restart"]),
              row.action == "start",
              let started = (try? JSONValue.parse(row.detailJSON))?["round"]?.intValue,
              started == Int64(round) else { return nil }
        return round
    }

    /// Puts `draw` (just restored, idle or revealed) back to rolling round `round` on the lock its
    /// Start stored, with the pending commitment's sealed seed and the inputs that Start froze
    /// (`pending_seeds`): the round the pages saw start is the one a Stop draws. Returns `round`,
    /// or nil (logged loudly) when the seed or the inputs are missing, unreadable or not this
    /// lock's: the round is then abandoned on the record as before.
    static func resumeRolling(_ draw: inout Draw, code: String, round: Int, in database: Database) throws -> Int? {
        guard let row = try database.pendingSeed(drawCode: code) else {
            DrawLog.unresumable(round: round, code: code, why: "no sealed seed is stored (a database from before issue #40)")
            return nil
        }
        guard let text = row.rolling, let hint = try? RollingStart.decode(text), hint.commitment == row.commitment,
              hint.round == round else {
            DrawLog.unresumable(round: round, code: code, why: "what its Start froze is not stored")
            return nil
        }
        guard let seed = SeedSeal.open(row.sealed, key: try database.seedKey(), code: code, commitment: row.commitment) else {
            DrawLog.unresumable(round: round, code: code, why: "the sealed seed does not open with seed.key")
            return nil
        }
        var resumed = draw
        do {
            try resumed.resumeCommitment(seed)
            try resumed.resumeRolling(contributions: hint.contributions, audience: hint.audience)
        } catch {
            DrawLog.unresumable(round: round, code: code, why: "the stored lock does not match: \(error.code)")
            return nil
        }
        draw = resumed
        return round
    }

    /// Storage errors as the protocol's codes: `disk_full` or `storage_failed`.
    static func errorCode(_ error: any Error) -> String {
        if let error = error as? StorageError, error.code == .diskFull { return "disk_full" }
        if error is ClusterError { return "cluster_unavailable" }
        return "storage_failed"
    }
}
