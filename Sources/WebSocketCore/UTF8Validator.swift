/// Incremental UTF-8 validation (Unicode Table 3-7) that fails on the first byte that cannot
/// start or continue a well-formed sequence, so a text message split across frames fails as
/// early as a whole one would (RFC 6455 §8.1; Autobahn's "fail fast").
public struct UTF8Validator: Sendable, Equatable {
    private var remaining: UInt8 = 0
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    public init() {}

    /// Whether the bytes so far end on a character boundary.
    public var isComplete: Bool { remaining == 0 }

    /// Feeds more bytes; false as soon as they cannot be part of valid UTF-8.
    public mutating func validate(_ bytes: some Collection<UInt8>) -> Bool {
        if let result = bytes.withContiguousStorageIfAvailable({ validate(buffer: $0) }) { return result }
        return Array(bytes).withUnsafeBufferPointer { validate(buffer: $0) }
    }

    /// Validates a whole string's worth of bytes.
    public static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
        var validator = UTF8Validator()
        return validator.validate(bytes) && validator.isComplete
    }

    private mutating func validate(buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = buffer.count
        while index < count {
            if remaining == 0 {
                // ASCII fast path, 8 bytes at a time.
                while index + 8 <= count {
                    let word = UnsafeRawPointer(buffer.baseAddress! + index).loadUnaligned(as: UInt64.self)
                    if word & 0x8080_8080_8080_8080 != 0 { break }
                    index += 8
                }
                guard index < count else { break }
                let byte = buffer[index]
                index += 1
                switch byte {
                case 0x00...0x7F: continue
                case 0xC2...0xDF: start(1, 0x80, 0xBF)
                case 0xE0: start(2, 0xA0, 0xBF)
                case 0xE1...0xEC, 0xEE...0xEF: start(2, 0x80, 0xBF)
                case 0xED: start(2, 0x80, 0x9F)  // no UTF-16 surrogates
                case 0xF0: start(3, 0x90, 0xBF)
                case 0xF1...0xF3: start(3, 0x80, 0xBF)
                case 0xF4: start(3, 0x80, 0x8F)  // nothing above U+10FFFF
                default: return false
                }
            } else {
                let byte = buffer[index]
                index += 1
                guard byte >= lower && byte <= upper else { return false }
                remaining -= 1
                lower = 0x80
                upper = 0xBF
            }
        }
        return true
    }

    private mutating func start(_ continuationBytes: UInt8, _ lower: UInt8, _ upper: UInt8) {
        remaining = continuationBytes
        self.lower = lower
        self.upper = upper
    }
}
