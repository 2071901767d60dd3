import Crypto

/// A winner's prize voucher (issue 45, docs/FAIRNESS.md "Prize hand-over"): seven Crockford
/// base32 characters of HMAC-SHA-256(server voucher key, draw, round, winner) and a check
/// character, shown as `7KQF-9XMD`. Nobody without the server's key can make one; the check
/// character lets a page catch a mistyped code before it asks the server.
public enum VoucherCode {
    /// Crockford's base32 (no I, L, O, U).
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    static let dataLength = 7

    /// The code of `winner` (a check-in entry's public id) in `round` of draw `draw`.
    public static func make(key: [UInt8], draw: String, round: Int, winner: String) -> String {
        let message = Array("tombola-voucher-v1\u{0}\(draw)\u{0}\(round)\u{0}\(winner)".utf8)
        let mac = HMACSHA256.authenticationCode(key: key, message: message)
        // The first 35 bits of the MAC, five at a time.
        var bits: UInt64 = 0
        for byte in mac.prefix(5) { bits = bits << 8 | UInt64(byte) }
        var values = (0..<dataLength).map { Int((bits >> UInt64(35 - 5 * ($0 + 1))) & 31) }
        values.append(check(values))
        return format(values)
    }

    /// The check value: Σ (i+1)·vᵢ mod 31. 31 is prime and every weight is below it, so one
    /// wrong character or two swapped neighbours change it (unless they differ by exactly 31: 0 and Z).
    static func check(_ values: [Int]) -> Int {
        values.enumerated().reduce(0) { ($0 + ($1.offset + 1) * $1.element) % 31 }
    }

    static func format(_ values: [Int]) -> String {
        let chars = values.map { Character(UnicodeScalar(alphabet[$0])) }
        return String(chars[0..<4]) + "-" + String(chars[4...])
    }

    /// What someone typed or scanned, as the canonical `XXXX-XXXX`: case, spaces and hyphens
    /// ignored, O read as 0 and I, L as 1 (Crockford); nil when it is not eight characters or
    /// its check character does not match (a typo).
    public static func normalize(_ input: String) -> String? {
        var values: [Int] = []
        for scalar in input.uppercased().unicodeScalars {
            switch scalar {
            case " ", "-", "\t": continue
            case "O": values.append(0)
            case "I", "L": values.append(1)
            default:
                guard scalar.isASCII, let index = alphabet.firstIndex(of: UInt8(scalar.value)) else { return nil }
                values.append(index)
            }
            if values.count > dataLength + 1 { return nil }
        }
        guard values.count == dataLength + 1, check(Array(values.prefix(dataLength))) == values[dataLength] else { return nil }
        return format(values)
    }
}
