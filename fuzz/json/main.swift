// libFuzzer target: the JSON a client can send (draw/calc messages, REST bodies).
// - the JSON module's JSONValue parser: no crash, depth-limited, canonical form re-parses to
//   the same value;
// - Foundation's JSONSerialization and JSONDecoder (as independent readers of the same input):
//   no crash on deep nesting or huge arrays;
// - App's DrawMessageParser (when built with -D APP_PARSER);
// - DrawConfig(json:), then Draw(config:)/configure and one whole round: bad settings are
//   typed errors, and every winner comes from the pool.
// Built by scripts/fuzz with the DrawEngine sources in the same module.
import Foundation
import JSON

private func checkJSONValue(_ bytes: [UInt8]) {
    guard let value = try? JSONValue.parse(bytes) else { return }
    let canonical = value.canonicalBytes
    guard let again = try? JSONValue.parse(canonical) else {
        preconditionFailure("canonical form does not parse: \(String(decoding: canonical, as: UTF8.self))")
    }
    // Doubles may not round-trip bit for bit through a canonical writer that rejects them;
    // everything records contain must.
    if !containsDouble(value) { precondition(again == value, "canonical form changes the value") }
}

private func containsDouble(_ value: JSONValue) -> Bool {
    switch value {
    case .double: true
    case .array(let items): items.contains(where: containsDouble)
    case .object(let members): members.values.contains(where: containsDouble)
    default: false
    }
}

private struct GenericClientMessage: Decodable {
    var type: String
    var key: String?
    var seq: Int?
    var mode: String?
    var unit: String?
    var entropy: String?
    var audience: String?
    var round: Int?
    var reason: String?
}

private struct CalcRequest: Decodable {
    var keys: [String]
    var mode: String?
}

/// For a config that excludes the winners of other draws: a third of its entrants "won" each
/// linked draw (by name, and by id for every other one), as the App resolves them at Start.
private func pastWinners(_ config: DrawConfig) -> [PastWinners] {
    let entrants: [Entrant]
    switch config.pool {
    case .range: return []
    case .list(let names): entrants = names.flatMap { $0.split(whereSeparator: \.isNewline) }.map { Entrant(name: EntrantList.trim(String($0))) }
    case .entries(let given): entrants = given
    case .checkin(let ids): entrants = ids.map { Entrant(name: $0) }
    }
    return config.excludeWinnersOf.map { link in
        let won = entrants.prefix(max(1, entrants.count / 3))
        return PastWinners(code: EntrantList.trim(link.code), head: String(repeating: "ab", count: 32), records: 3,
                           names: Set(won.enumerated().filter { $0.offset % 2 == 0 }.map { EntrantList.trim($0.element.name) }),
                           ids: Set(won.enumerated().filter { $0.offset % 2 == 1 }.compactMap { $0.element.id.map(EntrantList.trim) }))
    }
}

private func runDraw(_ config: DrawConfig) {
    guard var draw = try? Draw(config: config) else { return }
    let past = pastWinners(draw.config)
    // Keep each execution fast: large rounds are covered by the engine's own tests.
    if draw.remaining > 1_000_000 { if case .all = config.perStop { return } }
    if case .count(let n) = config.perStop, n > 2000 { return }
    if config.prizes.contains(where: { $0.count > 2000 }) { return }
    let seed = Seed(bytes: Array(repeating: 7, count: 32))!
    guard (try? draw.prepareCommitment(seed: seed, at: 1)) != nil,
          (try? draw.start(contributions: [], audience: "42", at: 2, pastWinners: past)) != nil else { return }
    guard let records = try? draw.stop(at: 3, nextSeed: Seed(bytes: Array(repeating: 9, count: 32))!) else {
        preconditionFailure("stop failed after a successful start")
    }
    precondition(!records.isEmpty, "stop stored nothing")
    let winners = draw.board.last?.winners ?? []
    precondition(Set(winners).count == winners.count, "a value won twice in one round")
    // Winners of linked draws never win here (matched by name, or by id when both have one).
    for winner in winners {
        let id: String? = if case .entries(let entrants) = draw.config.pool { entrants.first { DrawValue.name($0.name) == winner }?.id } else { nil }
        for other in past {
            precondition(!other.names.contains(winner.description), "an excluded name won")
            if let id { precondition(!other.ids.contains(id), "an excluded id won") }
        }
    }
    // Entrant ids stay on the server: the settings pages see carry none.
    if case .entries(let entrants) = draw.config.pool, entrants.contains(where: { $0.id != nil }) {
        precondition(!draw.config.publicJSON.canonicalString.contains("\"id\":"), "an id in the public settings")
    }
    switch config.pool {
    case .range(let from, let to):
        for case .number(let n) in winners { precondition(n >= min(from, to) && n <= max(from, to), "winner outside the range") }
    case .list, .entries:
        for winner in winners { if case .number = winner { preconditionFailure("number drawn from a list") } }
    case .checkin(let ids):
        for winner in winners { precondition(ids.contains(winner.description), "a winner that did not check in") }
    }
    // Winners of a prize limited to groups belong to them (weighted or not).
    if case .entries(let entrants) = draw.config.pool, let index = draw.board.last?.prizeIndex {
        let prize = draw.config.prizes[index]
        for winner in winners {
            let group = entrants.first { DrawValue.name($0.name) == winner }?.group ?? ""
            precondition(ValidatedConfig.isEligible(group: group, for: prize), "a winner outside the prize's groups")
        }
    }
    // Every record the engine wrote rechecks (docs/FAIRNESS.md §7).
    var chain = [DrawRecord]()
    if var fresh = try? Draw(config: config) {
        if let commit = try? fresh.prepareCommitment(seed: seed, at: 1) { chain.append(commit) }
        if (try? fresh.start(contributions: [], audience: "42", at: 2, pastWinners: past)) != nil,
           let more = try? fresh.stop(at: 3, nextSeed: Seed(bytes: Array(repeating: 9, count: 32))!) {
            chain += more
            precondition(RoundVerifier.verify(records: chain.map(\.json)).passed, "the engine's own round does not verify")
        }
    }
    _ = try? draw.reveal()
    _ = try? draw.configure(config)
}

#if APP_CHECKIN
/// A phone's join body and a host's check-in settings (#14): whatever the bytes, a form that is
/// accepted has a trimmed, NFC, 1–60 character name without controls, only the host's fields,
/// each within its length; settings that are accepted respect their limits and read back.
private func checkCheckin(_ bytes: [UInt8]) {
    guard let json = try? JSONValue.parse(bytes) else { return }
    let host = try! JSONValue.parse(Array(#"{"fields":[{"key":"ticket","required":true,"unique":true,"maxLength":8},{"key":"team"}]}"#.utf8))
    let settings = CheckinSettings.parse(host, base: CheckinSettings())!
    if case .success(let parsed) = CheckinForm.parse(json, settings: settings) {
        let name = parsed.form.name
        precondition(!name.isEmpty && name.count <= CheckinSettings.maxNameLength, "name length")
        precondition(name == CheckinForm.clean(name), "name not normalised")
        precondition(!CheckinForm.hasControl(name), "control in name")
        precondition(parsed.form.fields.contains { $0.key == "ticket" }, "required field missing")
        for field in parsed.form.fields {
            let limit = settings.fields.first { $0.key == field.key }?.maxLength
            precondition(limit != nil && field.value.count <= limit! && !field.value.isEmpty, "field \(field.key)")
        }
    }
    if let parsed = CheckinSettings.parse(json, base: CheckinSettings()) {
        precondition(parsed.fields.count <= CheckinSettings.maxFields, "too many fields")
        precondition(CheckinSettings(stored: parsed.json.canonicalString)?.fields == parsed.fields, "settings do not read back")
    }
}
#endif

#if APP_IMPORT
/// The spreadsheet import on the same bytes: fed whole and split at an input-chosen point, the
/// same rows or the same error; rows within the limits; and what the preview accepts, the
/// engine accepts (two or more entrants make a valid detailed list).
private func checkImport(_ bytes: [UInt8]) {
    func parse(_ cut: Int?) -> Result<[SpreadsheetParser.Row], ImportError> {
        var parser = SpreadsheetParser()
        do {
            var rows = [SpreadsheetParser.Row]()
            if let cut {
                rows += try parser.feed(bytes[..<cut])
                rows += try parser.feed(bytes[cut...])
            } else {
                rows += try parser.feed(bytes)
            }
            return .success(rows + (try parser.finish()))
        } catch {
            return .failure(error)
        }
    }
    let whole = parse(nil)
    let cut = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    switch (whole, parse(cut)) {
    case (.success(let a), .success(let b)): precondition(a == b, "split at \(cut) changes the rows")
    case (.failure(let a), .failure(let b)): precondition(a == b, "split at \(cut) changes the error")
    default: preconditionFailure("split at \(cut) changes the outcome")
    }
    if case .success(let rows) = whole {
        for row in rows {
            precondition(row.fields.count <= ImportLimits.maxColumns && row.fields.allSatisfy { $0.count <= ImportLimits.maxFieldBytes },
                         "a row beyond the limits")
        }
    }
    for policy in [EntrantImport.DuplicatePolicy.reject, .merge] {
        guard let preview = try? EntrantImport.preview(of: bytes, duplicates: policy), preview.entrants.count >= 2 else { continue }
        do {
            _ = try Draw(config: DrawConfig(pool: .entries(preview.entrants)))
        } catch {
            preconditionFailure("the engine refuses a previewed list: \(error.code)")
        }
    }
}
#endif

#if APP_BRANDING
/// The screen's branding rules on arbitrary text and bytes: an accepted accent is exactly
/// `#rrggbb` (nothing else can reach a page's style), an accepted title has no control
/// character and at most 100 characters, and only PNG/JPEG/WebP magic bytes name a logo type.
private func checkBranding(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    if let accent = try? BrandingRules.accent(text), !accent.isEmpty {
        precondition(accent.utf8.count == 7 && accent.utf8.first == UInt8(ascii: "#")
                     && accent.utf8.dropFirst().allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }, "accent \(accent)")
    }
    if let title = try? BrandingRules.title(text) {
        precondition(title.count <= BrandingRules.maxTitleLength && !title.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f }, "title")
    }
    if let type = BrandingRules.imageType(bytes) {
        precondition(["image/png", "image/jpeg", "image/webp"].contains(type) && bytes.first != UInt8(ascii: "<"), "logo type \(type)")
    }
}
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    checkJSONValue(bytes)
    #if APP_IMPORT
    checkImport(bytes)
    #endif
    #if APP_CHECKIN
    checkCheckin(bytes)
    #endif
    let blob = Data(bytes)
    _ = try? JSONSerialization.jsonObject(with: blob, options: [.fragmentsAllowed])
    let decoder = JSONDecoder()
    _ = try? decoder.decode(GenericClientMessage.self, from: blob)
    _ = try? decoder.decode(CalcRequest.self, from: blob)
    #if APP_PARSER
    // What /ws/draw and the REST API run on every client message and body.
    if let message = try? DrawMessageParser.parse(String(decoding: bytes, as: UTF8.self)),
       case .command(.configure(let config), _) = message {
        runDraw(config)
    }
    #endif
    if let json = try? JSONValue.parse(bytes), let config = try? DrawConfig(json: json) {
        runDraw(config)
        // A config must read back from its own text as itself (keys of linked draws are never
        // written: they prove control once and are dropped).
        var keyless = config
        keyless.excludeWinnersOf = config.excludeWinnersOf.map { PastDraw(code: $0.code) }
        let back = try? DrawConfig(json: JSONValue.parse(config.json.canonicalBytes))
        precondition(back == keyless, "DrawConfig does not round-trip")
        precondition(!config.json.canonicalString.contains("\"key\""), "a linked draw's key was written")
    }
    #if APP_BRANDING
    checkBranding(bytes)
    #endif
    return 0
}
