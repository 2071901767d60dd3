import Server
import DrawRoomCore
import DrawEngine
import Foundation
import Spreadsheet

/// The winners download (`export.csv`, `export.xlsx`): one row per winner of every round (the
/// whole archive, Clear included), voided winners marked with their reason. Built once as an
/// `ExportTable`: the CSV (UTF-8 with a byte order mark, RFC 4180, a `'` before a cell a
/// spreadsheet would run as a formula) and the `.xlsx` (numbers as numbers, times as dates) hold
/// the same cells. Times are the server's local time (the CSV with its UTC offset).
enum DrawExportCSV {
    static let header = ["session", "round", "prize", "winner", "voided", "reason", "replaces", "at", "record",
                         "commitment", "seed", "hash", "name"]

    /// `names`: a check-in pool's public id → name (the `name` column; empty without). `language`:
    /// the page's language (`?lang=`), in which a claim pass's reason is said (the record keeps the
    /// fixed English text).
    static func text(records: [DrawRecord], names: [String: String] = [:], language: String = "en",
                     timeZone: TimeZone = .current, handovers: [Handover] = []) -> String {
        table(records: records, names: names, language: language, timeZone: timeZone, handovers: handovers).csv
    }

    /// `handovers`: the prizes handed over (issue 45): the columns `handed over` (the time) and
    /// `by` (the operator), in a download that has any.
    static func table(records: [DrawRecord], names: [String: String] = [:], language: String = "en",
                      timeZone: TimeZone = .current, handovers: [Handover] = []) -> ExportTable {
        var voids: [String: String] = [:] // "round|winner" → reason
        for record in records {
            if case .void(let round, let winner, let reason) = record.body { voids["\(round)|\(winner)", default: reason] = reason }
            // An unclaimed win passed to an alternate (#26) is marked like a void, with its reason.
            if case .pass(let round, let winner, _, let reason) = record.body { voids["\(round)|\(winner)", default: reason] = reason }
        }
        var prizes: [Int: String] = [:]
        let name: (DrawValue) -> SheetCell = { value in
            if case .name(let id) = value, let name = names[id] { .text(name) } else { .empty }
        }
        var rows: [[SheetCell]] = []
        // Rehearsal rounds (issue 45): a column says REHEARSAL on each of their rows; a round that
        // drew the whole order lists its waiting list after its winners, the column `waitlist`
        // giving each place. Each column only in a download that has any (others keep theirs).
        var marks: [Bool] = []
        var places: [Int?] = []
        // A reverse raffle's rounds (FAIRNESS.md §21): the column `reverse` says each of their rows
        // was drawn out, and the round that left one in adds that one's row: "last one in: wins".
        var outs: [String?] = []
        var handed: [Handover?] = []
        let handedBy = Dictionary(handovers.map { ("\($0.round)|\($0.winner)", $0) }, uniquingKeysWith: { a, _ in a })
        var rehearsalRound: [Int: Bool] = [:]
        var session = 1
        for record in records {
            switch record.body {
            case .clear:
                session += 1
            case .pass(let round, let winner, let alternate?, _):
                // The alternate's row: it replaces the unclaimed winner; no seed of its own (FAIRNESS.md §15).
                let reason = voids["\(round)|\(alternate)"]
                rows.append([.integer(Int64(session)), .integer(Int64(round)), text(prizes[round]), cell(alternate),
                             .text(reason == nil ? "no" : "yes"), text(said(reason, language)), cell(winner),
                             ExportTable.time(millis: record.at, in: timeZone), .integer(Int64(record.index)), .empty, .empty,
                             .text(record.hash), name(alternate)])
                marks.append(rehearsalRound[round] ?? false)
                places.append(nil)
                outs.append(nil)
                handed.append(handedBy["\(round)|\(alternate)"])
            case .round(let round):
                prizes[round.round] = round.prize ?? ""
                rehearsalRound[round.round] = round.rehearsal
                for winner in round.winners {
                    let reason = voids["\(round.round)|\(winner)"]
                    rows.append([.integer(Int64(session)), .integer(Int64(round.round)), text(round.prize), cell(winner),
                                 .text(reason == nil ? "no" : "yes"), text(said(reason, language)),
                                 round.replaces.map { cell($0.winner) } ?? .empty,
                                 ExportTable.time(millis: record.at, in: timeZone), .integer(Int64(record.index)),
                                 .text(round.commitment), .text(round.seed), .text(record.hash), name(winner)])
                    marks.append(round.rehearsal)
                    places.append(nil)
                    outs.append(round.reverse ? "drawn out" : nil)
                    handed.append(handedBy["\(round.round)|\(winner)"])
                }
                if let last = round.lastIn, round.reverse {
                    rows.append([.integer(Int64(session)), .integer(Int64(round.round)), text(round.prize), cell(last),
                                 .text("no"), .empty, .empty, ExportTable.time(millis: record.at, in: timeZone),
                                 .integer(Int64(record.index)), .text(round.commitment), .text(round.seed), .text(record.hash), name(last)])
                    marks.append(round.rehearsal)
                    places.append(nil)
                    outs.append("last one in: wins")
                    handed.append(nil)
                }
                // The whole order: the waiting list completes the pool (FAIRNESS §15, issue 45).
                if let waiting = round.alternates, !waiting.isEmpty, UInt64(round.winners.count + waiting.count) == round.eligible {
                    for (i, entrant) in waiting.enumerated() {
                        rows.append([.integer(Int64(session)), .integer(Int64(round.round)), text(round.prize), cell(entrant),
                                     .empty, .empty, .empty, ExportTable.time(millis: record.at, in: timeZone),
                                     .integer(Int64(record.index)), .text(round.commitment), .text(round.seed), .text(record.hash),
                                     name(entrant)])
                        marks.append(round.rehearsal)
                        places.append(i + 1)
                        outs.append(nil)
                        handed.append(nil)
                    }
                }
            default:
                break
            }
        }
        var columns = header
        if marks.contains(true) {
            columns.append("rehearsal")
            rows = zip(rows, marks).map { row, rehearsal in row + [rehearsal ? .text("REHEARSAL") : .empty] }
        }
        if places.contains(where: { $0 != nil }) {
            columns.append("waitlist")
            rows = zip(rows, places).map { row, place in row + [place.map { .integer(Int64($0)) } ?? .empty] }
        }
        if outs.contains(where: { $0 != nil }) {
            columns.append("reverse")
            rows = zip(rows, outs).map { row, out in row + [out.map { .text($0) } ?? .empty] }
        }
        if handed.contains(where: { $0 != nil }) {
            columns += ["handed over", "by"]
            rows = zip(rows, handed).map { row, handover in
                row + (handover.map { [ExportTable.time(millis: $0.at, in: timeZone), .text($0.by)] } ?? [.empty, .empty])
            }
        }
        return ExportTable(header: columns, rows: rows, timeZone: timeZone, fractionalSeconds: true)
    }

    /// A claim pass's fixed reason ("not claimed in N s", kept in English on the record) in each
    /// language of the pages (the same words as their `claim.reason`, Public/js/lib/i18n*).
    static let claimReason: [String: @Sendable (Int) -> String] = [
        "zh": { "\($0) 秒内未领取" }, "zh-Hant": { "\($0) 秒內未領取" }, "ja": { "\($0) 秒以内に受け取りなし" },
        "ko": { "\($0)초 안에 미수령" }, "es": { "sin reclamar en \($0) s" }, "fr": { "non réclamé en \($0) s" },
        "de": { "nicht abgeholt in \($0) s" }, "vi": { "không nhận trong \($0) giây" }, "ar": { "لم تُستلم خلال \($0) ث" },
    ]

    /// The pages' language for a `?lang=` tag: zh-Hant (also zh-TW, zh-HK, zh-MO), zh, or the
    /// tag's first part (en when none).
    static func pageLanguage(_ tag: String) -> String {
        let lower = tag.lowercased()
        if ["zh-hant", "zh-tw", "zh-hk", "zh-mo"].contains(where: { lower.hasPrefix($0) }) { return "zh-Hant" }
        return String(lower.prefix { $0 != "-" && $0 != "_" })
    }

    /// A reason as the download's language says it: a claim pass's fixed "not claimed in N s"
    /// in that language; a host's own void reason as typed.
    static func said(_ reason: String?, _ language: String) -> String {
        guard let reason else { return "" }
        guard let say = claimReason[pageLanguage(language)], reason.hasPrefix("not claimed in "), reason.hasSuffix(" s"),
              let seconds = Int(reason.dropFirst("not claimed in ".count).dropLast(2)) else { return reason }
        return say(seconds)
    }

    private static func text(_ value: String?) -> SheetCell {
        guard let value, !value.isEmpty else { return .empty }
        return .text(value)
    }

    private static func cell(_ value: DrawValue) -> SheetCell {
        switch value {
        case .number(let n): .integer(n)
        case .name(let name): text(name)
        }
    }
}
