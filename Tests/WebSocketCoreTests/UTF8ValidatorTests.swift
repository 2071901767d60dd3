import Testing
@testable import WebSocketCore

@Suite struct UTF8ValidatorTests {
    static let valid: [[UInt8]] = [
        [], Array("Hello-µ@ßöäüàá-UTF-8!!".utf8), Array("κόσμε".utf8), hex("ed 9f bf"), hex("ee 80 80"),
        hex("ef bf bd"), hex("f4 8f bf bf"), hex("f0 90 80 80"), hex("c2 80"), hex("7f"),
    ]
    static let invalid: [[UInt8]] = [
        hex("80"), hex("bf"), hex("c0 80"), hex("c1 bf"), hex("e0 80 80"), hex("ed a0 80"), hex("ed bf bf"),
        hex("f0 80 80 80"), hex("f4 90 80 80"), hex("f5 80 80 80"), hex("ff"), hex("fe"), hex("ce ba e1 bd b9 ed a0 80 65 64 69 74 65 64"),
    ]

    @Test(arguments: valid)
    func acceptsWellFormedText(_ bytes: [UInt8]) {
        #expect(UTF8Validator.isValid(bytes))
    }

    @Test(arguments: invalid)
    func rejectsMalformedText(_ bytes: [UInt8]) {
        #expect(!UTF8Validator.isValid(bytes))
    }

    @Test func rejectsATruncatedSequenceOnlyAtTheEnd() {
        var validator = UTF8Validator()
        let first = validator.validate(hex("ce ba e1"))
        #expect(first)
        #expect(!validator.isComplete)
        let second = validator.validate(hex("bd b9"))
        #expect(second)
        #expect(validator.isComplete)
    }

    @Test func failsAtTheFirstImpossibleByte() {
        var validator = UTF8Validator()
        let prefix = validator.validate(hex("ce ba e1 bd b9 ce bc ce b5"))
        #expect(prefix)
        let rest = validator.validate(hex("f4 90"))
        #expect(!rest)  // no code point above U+10FFFF
    }

    @Test func agreesWithTheStandardLibraryOnRandomSplitInput() {
        let seed = UInt64.random(in: .min ... .max)
        var rng = SeededGenerator(seed: seed)
        let pieces: [[UInt8]] = [Array("a".utf8), Array("é".utf8), Array("中".utf8), Array("😀".utf8), [0x80], [0xED, 0xA0], [0xF4], [0xC0]]
        for _ in 0..<2000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...12, using: &rng) { bytes += pieces.randomElement(using: &rng)! }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            var validator = UTF8Validator()
            let split = Int.random(in: 0...bytes.count, using: &rng)
            let ok = validator.validate(bytes[..<split]) && validator.validate(bytes[split...]) && validator.isComplete
            #expect(ok == expected, "seed \(seed) bytes \(bytes)")
        }
    }
}
