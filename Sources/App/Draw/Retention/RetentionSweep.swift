import DrawEngine
import DrawRoomCore
import JSON
import Posix
import Server
import Storage

/// Retention (issue #41, the setting `retentionDays`): the server erases a check-in draw's
/// personal data (names, fields, device hashes: what *Erase entrants* erases) once
/// `RetentionPolicy` says it is due, and keeps everything that proves the draw (public ids,
/// the chain). Single-box: it looks at start (an erase that fell due while the server was down
/// runs then) and every hour after; the query runs on the storage thread, the erase is the
/// room's own `retention_erase` command (audit actor `system`), so a loaded room's book and
/// its pages change with the tables. Cluster mode does not sweep and so refuses the setting
/// (`DrawRoomSettings.sweepsRetention`, docs/PROTOCOL.md).
struct RetentionStatus: Sendable, Equatable {
    var days: Int
    /// Seconds since 1970.
    var dueAt: Double
    var personalEntrants: Int
    var entriesOpen: Bool

    /// The status of one stored row; nil when its settings hold no valid `retentionDays`.
    init?(_ row: RetentionRow) {
        guard let config = try? JSONValue.parse(Array(row.configJSON.utf8)),
              let days = config["retentionDays"]?.intValue.map(Int.init), DrawConfig.retentionRange.contains(days) else { return nil }
        self.days = days
        dueAt = RetentionPolicy.dueAt(days: days, lastActivity: row.lastActivity)
        personalEntrants = row.personalEntrants
        entriesOpen = row.checkinJSON.flatMap { try? JSONValue.parse(Array($0.utf8)) }?["open"]?.boolValue ?? false
        lastActivity = row.lastActivity
    }

    var lastActivity: Double

    func isDue(now: Double) -> Bool {
        RetentionPolicy.isDue(days: days, lastActivity: lastActivity, personalEntrants: personalEntrants,
                              entriesOpen: entriesOpen, now: now)
    }

    /// `{"days","dueAt","entrants","open"}` as the admin list shows it (`dueAt` in milliseconds, like the other times there).
    var json: JSONValue {
        .object(["days": .int(Int64(days)), "dueAt": .int(Int64(dueAt * 1000)),
                 "entrants": .int(Int64(personalEntrants)), "open": .bool(entriesOpen)])
    }
}

extension DrawService {
    /// How often the sweep looks after the one at start.
    static let retentionInterval = Duration.seconds(3600)

    /// Starts the sweep (single-box): now, then hourly, on the draw loop's timer.
    func startRetention() {
        guard cluster == nil else { return }
        let loop = group.loops[0]
        loop.execute { [weak self] in
            self?.sweepRetention()
            self?.scheduleRetention(on: loop)
        }
    }

    private func scheduleRetention(on loop: EventLoop) {
        loop.scheduleTimer(after: Self.retentionInterval) { [weak self] in
            guard let self else { return }
            sweepRetention()
            scheduleRetention(on: loop)
        }
    }

    /// The draws with a retention setting and their status (storage thread), for the sweep and the admin view.
    func retentionStatuses(completion: @escaping @Sendable (Result<[String: RetentionStatus], any Error>) -> Void) {
        storage.async({ database in
            var statuses: [String: RetentionStatus] = [:]
            for row in try database.retentionRows() { statuses[row.code] = RetentionStatus(row) }
            return statuses
        }, completion: completion)
    }

    /// Erases every draw that is due now. The room decides again when the command reaches it: a
    /// round rolling (`wrong_phase`) or a claim open leaves the erase to the next sweep.
    func sweepRetention() {
        retentionStatuses { [weak self] result in
            guard let self, case .success(let statuses) = result else {
                if case .failure(let error) = result {
                    Log.event("retention.failed", level: .error, fields: ["error": .string("\(error)")],
                              text: "tombola: retention: reading the draws failed: \(error)")
                }
                return
            }
            let now = Double(DrawPersistence.now) / 1000
            for (code, status) in statuses.sorted(by: { $0.key < $1.key }) where status.isDue(now: now) {
                guard let room = localRoom(code) else { continue }
                room.perform(.checkin(.expire(days: status.days)), seq: nil, client: nil) { outcome in
                    switch outcome {
                    case .success:
                        Log.event("retention.erased", fields: ["draw": .string(code), "days": .int(Int64(status.days)),
                                                               "entrants": .int(Int64(status.personalEntrants))],
                                  text: "tombola: draw \(code): personal data erased (kept \(status.days) days after its last activity)")
                    case .failure(let failure):
                        Log.event("retention.deferred", fields: ["draw": .string(code), "code": .string(failure.code)],
                                  text: "tombola: draw \(code): retention erase deferred (\(failure.code)); the next sweep tries again")
                    }
                }
            }
        }
    }
}
