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

private func runDraw(_ config: DrawConfig) {
    guard var draw = try? Draw(config: config) else { return }
    // Keep each execution fast: large rounds are covered by the engine's own tests.
    if draw.remaining > 1_000_000 { if case .all = config.perStop { return } }
    if case .count(let n) = config.perStop, n > 2000 { return }
    if config.prizes.contains(where: { $0.count > 2000 }) { return }
    let seed = Seed(bytes: Array(repeating: 7, count: 32))!
    guard (try? draw.prepareCommitment(seed: seed, at: 1)) != nil,
          (try? draw.start(contributions: [], audience: "42", at: 2)) != nil else { return }
    guard let records = try? draw.stop(at: 3, nextSeed: Seed(bytes: Array(repeating: 9, count: 32))!) else {
        preconditionFailure("stop failed after a successful start")
    }
    precondition(!records.isEmpty, "stop stored nothing")
    let winners = draw.board.last?.winners ?? []
    precondition(Set(winners).count == winners.count, "a value won twice in one round")
    switch config.pool {
    case .range(let from, let to):
        for case .number(let n) in winners { precondition(n >= min(from, to) && n <= max(from, to), "winner outside the range") }
    case .list:
        for winner in winners { if case .number = winner { preconditionFailure("number drawn from a list") } }
    }
    _ = try? draw.reveal()
    _ = try? draw.configure(config)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    checkJSONValue(bytes)
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
        // A config must read back from its own text as itself.
        let back = try? DrawConfig(json: JSONValue.parse(config.json.canonicalBytes))
        precondition(back == config, "DrawConfig does not round-trip")
    }
    return 0
}
