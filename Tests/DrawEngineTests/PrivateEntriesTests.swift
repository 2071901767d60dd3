@testable import DrawEngine
import Testing

/// Private draws (docs/FAIRNESS.md §22): the salts are RFC 2104 HMAC-SHA256 (written out for
/// speed, held equal to the one-shot HMAC here), the public ids are commitments that carry nothing
/// of the name, the server's masking is the screens' (docs/STAGE.md "Name masking"), and a private
/// list is drawn, excluded and restored by its public ids.
@Suite struct PrivateEntriesTests {
    static let secret = (0..<32).map { UInt8($0 * 7 + 1) }

    @Test func theSaltIsTheHMACOfTheDrawsSecretAndTheIdCommitsToSaltAndName() {
        for name in ["Ann", "Zoë Ng", "李雷", "13812345678", String(repeating: "x", count: 200)] {
            let salt = PrivateEntries.salt(secret: Self.secret, name: name)
            #expect(salt == Hashing.hmacSHA256(key: Self.secret, message: Array("salt".utf8) + [0] + Array(name.utf8)))
            let id = PrivateEntries.publicID(name: name, secret: Self.secret)
            #expect(id == "#" + Hashing.sha256Hex(salt + Array(name.utf8)))
            #expect(PrivateEntries.opens(id: id, name: name, salt: salt))
            #expect(!PrivateEntries.opens(id: id, name: name + " ", salt: salt))
        }
        // A key longer than a block is hashed first (RFC 2104), as HMAC() does.
        let long = [UInt8](repeating: 9, count: 100)
        #expect(PrivateEntries.Salter(secret: long).salt(name: "Ann") == Hashing.hmacSHA256(key: long, message: Array("salt".utf8) + [0] + Array("Ann".utf8)))
    }

    @Test func theServersMaskIsTheScreensNames() {
        let cases = ["张三": "张*", "欧阳娜娜": "欧***", "John Doe": "J*** D**", "Nguyễn Văn Ánh": "N***** V** Á**", "张": "张*",
                     "13812345678": "138****5678", "+86 138-1234-5678": "861******5678", "5551234": "55***34", "0042": "0***"]
        for (name, masked) in cases { #expect(NameMasking.mask(name) == masked, "\(name)") }
    }

    @Test func aPrivateListIsDrawnExcludedAndRestoredByItsPublicIds() throws {
        let names = ["Ann Lee", "Bob Ray", "Cy Dot", "Di Fox", "Ed Gil"]
        var config = DrawConfig(pool: .list(names), exclude: [.name("Bob Ray")], perStop: .count(2))
        config.isPrivate = true
        config.privateGiven = true
        var draw = try Draw(config: config)
        let secret = try #require(draw.config.privateSecret)
        let ids = names.map { PrivateEntries.publicID(name: $0, secret: secret) }
        #expect(draw.config.exclude == [.name("Bob Ray")])  // the host's names stay in the settings
        #expect(draw.config.publicJSON.canonicalString.contains(ids[0]) && !draw.config.publicJSON.canonicalString.contains("Ann Lee"))
        #expect(!draw.config.publicJSON.canonicalString.contains(Hex.encode(secret)))
        #expect(draw.config.json.canonicalString.contains(Hex.encode(secret)))
        #expect(draw.privateName(of: ids[2]) == "Cy Dot")
        // A configure that does not say `private` keeps the draw private, with the same secret.
        var again = DrawConfig(pool: .list(names + ["Fay Hu"]), perStop: .count(2))
        again.privateGiven = false
        try draw.configure(again)
        #expect(draw.config.isPrivate && draw.config.privateSecret == secret)
        #expect(draw.rollingValue(using: &SystemRandomNumberGenerator.shared).description.hasPrefix("#"))
        // Restored from the stored settings: the same ids.
        let stored = try DrawConfig(json: draw.config.json)
        #expect(stored.privateSecret == secret && stored.isPrivate)
        #expect(try Draw(config: stored).privateName(of: ids[0]) == "Ann Lee")
    }
}

extension SystemRandomNumberGenerator {
    nonisolated(unsafe) static var shared = SystemRandomNumberGenerator()
}
