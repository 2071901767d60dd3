/// Lower-case hexadecimal, two digits a byte.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out = [UInt8]()
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes hex (either case); nil when the text is not an even number of hex digits.
    public static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count / 2)
        var index = 0
        while index < chars.count {
            guard let high = value(chars[index]), let low = value(chars[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    /// True when `text` is exactly `byteCount` bytes of lower-case hex.
    static func isLowercase(_ text: String, byteCount: Int) -> Bool {
        text.utf8.count == byteCount * 2
            && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    private static func value(_ char: UInt8) -> UInt8? {
        switch char {
        case 0x30...0x39: char - 0x30
        case 0x61...0x66: char - 0x61 + 10
        case 0x41...0x46: char - 0x41 + 10
        default: nil
        }
    }
}
