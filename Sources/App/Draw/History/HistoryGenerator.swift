import DrawRoomCore
import DrawEngine
import JSON
import Posix
import Storage

/// Lays down stored history for the start-up benchmark (`tombola generate-history`, issue 18):
/// `draws` draws of `rounds` rounds each, run through the engine the server runs (`Draw`: the
/// `open` commitment, then per round Start, Stop, reveal, each Stop committing the next seed)
/// and stored with `DrawPersistence.append` and the audit log as a room stores them, so every
/// chain verifies (`tombola verify` on an export) and a server reads them back exactly as real
/// history. Only the pace differs: no slow-down, no viewers, and one synced transaction per
/// draw instead of one per Stop. Optionally a Clear every `roundsPerSession` rounds.
public enum HistoryGenerator {
    public struct Summary: Sendable {
        public let draws: Int
        public let records: Int
        public let seconds: Double
    }

    public enum Failure: Error, CustomStringConvertible {
        case notEmpty(String)
        case badCode(String)

        public var description: String {
            switch self {
            case .notEmpty(let code): "draw \(code) is already stored: generate into a new data directory"
            case .badCode(let prefix): "--prefix '\(prefix)' must be letters, digits, '-' or '_' (codes are PREFIX-0001…)"
            }
        }
    }

    /// The code of generated draw `number` (1-based): `PREFIX-0001`, ….
    public static func code(prefix: String, number: Int) -> String {
        let digits = String(number)
        return prefix + "-" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// Writes the draws into the database in `dataDirectory` (created if missing). Every draw's
    /// host key is `hostKey`. Blocks.
    public static func run(dataDirectory: String, draws: Int, rounds: Int, roundsPerSession: Int? = nil,
                           prefix: String = "GEN", hostKey: String, pool: Int64 = 1_000_000,
                           progress: (Int) -> Void = { _ in }) throws -> Summary {
        guard DrawKeys.isValidCode(code(prefix: prefix, number: draws)) else { throw Failure.badCode(prefix) }
        let started = ContinuousClock.now
        let storage = try StorageQueue(directory: dataDirectory)
        defer { storage.close() }
        let audit = DrawAuditLog()
        let config = DrawConfig(pool: .range(from: 1, to: pool))
        let hash = DrawKeys.hash(hostKey)
        var records = 0
        for number in 1...draws {
            let code = code(prefix: prefix, number: number)
            records += try storage.sync { database -> Int in
                if try database.loadDraw(code: code) != nil { throw Failure.notEmpty(code) }
                // Rounds a second apart, ending now, as if the draw had been run live.
                var at = Int64(WallClock.unixMilliseconds()) - Int64(rounds) * 1000 - 1000
                let createdAt = Double(at) / 1000
                var draw = try Draw(config: config)
                var batch = [try draw.prepareFreshCommitment(at: at)]
                var audits = [AuditEntry(actor: "system", action: "create")]
                var clearedThrough: Int? = nil
                for round in stride(from: 1, through: rounds, by: 1) {
                    at += 1000
                    if let every = roundsPerSession, every > 0, round > 1, (round - 1) % every == 0 {
                        let clear = try draw.clear(at: at)
                        batch.append(clear)
                        clearedThrough = clear.index
                        audits.append(AuditEntry(actor: "host", action: "clear", detail: .object(["record": .int(Int64(clear.index))])))
                    }
                    audits.append(AuditEntry(actor: "host", action: "start", detail: .object([
                        "round": .int(Int64(draw.nextRound)), "audience": .null, "contributors": .int(0)])))
                    batch += try draw.start(contributions: [], at: at)
                    audits.append(AuditEntry(actor: "host", action: "stop", detail: .object(["round": .int(Int64(draw.nextRound))])))
                    batch += try draw.stop(at: at, nextSeed: .fresh())
                    try draw.reveal()
                }
                let row = DrawRow(code: code, hostKeyHash: hash, createdAt: createdAt,
                                  configJSON: DrawPersistence.encode(config), clearedThrough: clearedThrough ?? -1)
                try database.transaction {
                    try database.insertDraw(row)
                    try DrawPersistence.append(batch, code: code, clearedThrough: clearedThrough, in: database)
                    for entry in audits { try audit.append(entry, code: code, at: at, in: database) }
                }
                return batch.count
            }
            progress(number)
        }
        return Summary(draws: draws, records: records, seconds: (ContinuousClock.now - started).seconds)
    }
}

private extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
