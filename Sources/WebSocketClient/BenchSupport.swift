import Glibc

/// Latencies in microseconds, counted in log-linear buckets (HdrHistogram's idea): exact below
/// 256 µs, then 128 buckets per power of two, so a percentile is off by less than 0.8%.
/// Fixed memory (about 60 KB), no allocation per value; histograms merge by adding counts, so
/// each loop or process keeps its own and the totals are combined at the end.
public struct LatencyHistogram: Sendable, Equatable {
    static let exactLimit: UInt64 = 256
    static let subBuckets: UInt64 = 128
    static let bucketCount = 256 + (63 - 8 + 1) * 128

    public private(set) var counts: [UInt64]
    public private(set) var count: UInt64 = 0
    public private(set) var sum: UInt64 = 0
    public private(set) var min: UInt64 = .max
    public private(set) var max: UInt64 = 0

    public init() {
        counts = [UInt64](repeating: 0, count: Self.bucketCount)
    }

    /// Rebuilds a histogram from `nonEmptyBuckets` (and the exact extremes) of another one.
    public init(buckets: [(index: Int, count: UInt64)], sum: UInt64, min: UInt64, max: UInt64) {
        self.init()
        for (index, count) in buckets where index >= 0 && index < Self.bucketCount {
            counts[index] += count
            self.count += count
        }
        self.sum = sum
        self.min = self.count == 0 ? .max : min
        self.max = max
    }

    static func index(of value: UInt64) -> Int {
        if value < exactLimit { return Int(value) }
        let exponent = UInt64(63 - value.leadingZeroBitCount)  // ≥ 8
        let mantissa = value >> (exponent - 7)  // 128…255
        return Int(256 + (exponent - 8) * subBuckets + (mantissa - 128))
    }

    /// The largest value that lands in bucket `index`.
    static func upperBound(of index: Int) -> UInt64 {
        if index < Int(exactLimit) { return UInt64(index) }
        let exponent = UInt64(index - 256) / subBuckets + 8
        let mantissa = UInt64(index - 256) % subBuckets + 128
        let shift = exponent - 7
        return ((mantissa + 1) << shift) &- 1
    }

    public mutating func record(_ microseconds: UInt64) {
        counts[Self.index(of: microseconds)] &+= 1
        count &+= 1
        sum &+= microseconds
        if microseconds < min { min = microseconds }
        if microseconds > max { max = microseconds }
    }

    public mutating func merge(_ other: LatencyHistogram) {
        guard other.count > 0 else { return }
        for index in counts.indices where other.counts[index] != 0 { counts[index] &+= other.counts[index] }
        count &+= other.count
        sum &+= other.sum
        min = Swift.min(min, other.min)
        max = Swift.max(max, other.max)
    }

    /// The value at or below which `percent`% of the recorded values lie (bucket upper bound,
    /// never above the true maximum); nil when empty.
    public func percentile(_ percent: Double) -> UInt64? {
        guard count > 0 else { return nil }
        let rank = Swift.max(1, UInt64((percent / 100 * Double(count)).rounded(.up)))
        var seen: UInt64 = 0
        for index in counts.indices where counts[index] != 0 {
            seen += counts[index]
            if seen >= rank { return Swift.min(Self.upperBound(of: index), max) }
        }
        return max
    }

    public var mean: Double? { count == 0 ? nil : Double(sum) / Double(count) }

    public var nonEmptyBuckets: [(index: Int, count: UInt64)] {
        counts.indices.compactMap { counts[$0] == 0 ? nil : ($0, counts[$0]) }
    }
}

/// Finds fields in a JSON text frame without decoding it: enough for the benchmark's hot
/// path, which reads `seq` and `at` out of 200,000 ticks a second. It looks for `"name":`
/// anywhere, so it suits flat server messages, not arbitrary JSON.
public enum JSONFieldScanner {
    /// Whether `bytes` contains `"type":"<type>"` (optional spaces after the colon).
    public static func hasType(_ type: StaticString, in bytes: UnsafeRawBufferPointer) -> Bool {
        guard let start = valueStart(of: "type", in: bytes), start < bytes.count, bytes[start] == UInt8(ascii: "\"") else {
            return false
        }
        let wanted = UnsafeRawBufferPointer(start: type.utf8Start, count: type.utf8CodeUnitCount)
        let end = start + 1 + wanted.count
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return false }
        return memcmp(bytes.baseAddress! + start + 1, wanted.baseAddress!, wanted.count) == 0
    }

    /// The string value of `"name":` (escapes kept as written); nil when absent or not a string.
    public static func string(_ name: StaticString, in bytes: UnsafeRawBufferPointer) -> String? {
        guard let start = valueStart(of: name, in: bytes), start < bytes.count, bytes[start] == UInt8(ascii: "\"") else {
            return nil
        }
        var end = start + 1
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
            end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
        }
        guard end < bytes.count else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(start + 1)..<end]), as: UTF8.self)
    }

    /// The integer value of `"name":`; nil when absent or not an integer.
    public static func integer(_ name: StaticString, in bytes: UnsafeRawBufferPointer) -> Int? {
        guard var position = valueStart(of: name, in: bytes) else { return nil }
        var negative = false
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { negative = true; position += 1 }
        var value = 0
        var digits = 0
        while position < bytes.count, bytes[position] >= 48, bytes[position] <= 57, digits < 18 {
            value = value * 10 + Int(bytes[position] - 48)
            digits += 1
            position += 1
        }
        guard digits > 0 else { return nil }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") || bytes[position] == UInt8(ascii: "e")
            || bytes[position] == UInt8(ascii: "E") || (bytes[position] >= 48 && bytes[position] <= 57) { return nil }
        return negative ? -value : value
    }

    /// The number value of `"name":` (integer, fraction, exponent); nil when absent or not a number.
    public static func number(_ name: StaticString, in bytes: UnsafeRawBufferPointer) -> Double? {
        guard var position = valueStart(of: name, in: bytes) else { return nil }
        var negative = false
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { negative = true; position += 1 }
        var mantissa: UInt64 = 0
        var scale = 0
        var digits = 0
        var significant = 0
        while position < bytes.count, bytes[position] >= 48, bytes[position] <= 57 {
            if significant < 19 {
                mantissa = mantissa * 10 + UInt64(bytes[position] - 48)
                if mantissa != 0 { significant += 1 }
            } else {
                scale += 1
            }
            digits += 1
            position += 1
        }
        guard digits > 0 else { return nil }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            var fractionDigits = 0
            while position < bytes.count, bytes[position] >= 48, bytes[position] <= 57 {
                if significant < 19 {
                    mantissa = mantissa * 10 + UInt64(bytes[position] - 48)
                    if mantissa != 0 { significant += 1 }
                    scale -= 1
                }
                fractionDigits += 1
                position += 1
            }
            guard fractionDigits > 0 else { return nil }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            var exponentNegative = false
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                exponentNegative = bytes[position] == UInt8(ascii: "-")
                position += 1
            }
            var exponent = 0
            var exponentDigits = 0
            while position < bytes.count, bytes[position] >= 48, bytes[position] <= 57 {
                exponent = Swift.min(exponent * 10 + Int(bytes[position] - 48), 1000)
                exponentDigits += 1
                position += 1
            }
            guard exponentDigits > 0 else { return nil }
            scale += exponentNegative ? -exponent : exponent
        }
        var value = Double(mantissa)
        if scale > 0 {
            for _ in 0..<Swift.min(scale, 400) { value *= 10 }
        } else if scale < 0 {
            // Dividing by an exact power of ten keeps `1764455400123.5` exact.
            var divisor = 1.0
            for _ in 0..<Swift.min(-scale, 400) { divisor *= 10 }
            value /= divisor
        }
        return negative ? -value : value
    }

    /// Index just past `"name":` and any spaces, or nil.
    static func valueStart(of name: StaticString, in bytes: UnsafeRawBufferPointer) -> Int? {
        let key = UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        let needed = key.count + 3
        guard bytes.count >= needed else { return nil }
        var index = 0
        while index <= bytes.count - needed {
            if bytes[index] == UInt8(ascii: "\""), bytes[index + key.count + 1] == UInt8(ascii: "\""),
               memcmp(bytes.baseAddress! + index + 1, key.baseAddress!, key.count) == 0 {
                var position = index + key.count + 2
                while position < bytes.count, bytes[position] == UInt8(ascii: " ") { position += 1 }
                if position < bytes.count, bytes[position] == UInt8(ascii: ":") {
                    position += 1
                    while position < bytes.count, bytes[position] == UInt8(ascii: " ") { position += 1 }
                    return position
                }
            }
            index += 1
        }
        return nil
    }
}

/// A `tick` broadcast's sequence number and server time (Unix ms, fractional).
public struct TickFields: Sendable, Equatable {
    public var seq: Int
    public var at: Double

    public init(seq: Int, at: Double) {
        self.seq = seq
        self.at = at
    }

    /// The fields of a `{"type":"tick",…}` message; nil for any other message.
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> TickFields? {
        guard JSONFieldScanner.hasType("tick", in: bytes),
              let seq = JSONFieldScanner.integer("seq", in: bytes),
              let at = JSONFieldScanner.number("at", in: bytes) else { return nil }
        return TickFields(seq: seq, at: at)
    }
}
