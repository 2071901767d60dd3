import JSON

/// One entrant: a number of a range pool or a name of a list pool.
///
/// Names compare as UTF-8 bytes (no Unicode normalization), as docs/FAIRNESS.md §2 says.
public enum DrawValue: Sendable, CustomStringConvertible {
    case number(Int64)
    case name(String)

    public var description: String {
        switch self {
        case .number(let n): String(n)
        case .name(let s): s
        }
    }

    public var json: JSONValue {
        switch self {
        case .number(let n): .int(n)
        case .name(let s): .string(s)
        }
    }

    public init?(json: JSONValue) {
        switch json {
        case .int(let n): self = .number(n)
        case .string(let s): self = .name(s)
        default: return nil
        }
    }
}

extension DrawValue: Hashable {
    public static func == (lhs: DrawValue, rhs: DrawValue) -> Bool {
        switch (lhs, rhs) {
        case (.number(let a), .number(let b)): a == b
        case (.name(let a), .name(let b)): a.utf8.elementsEqual(b.utf8)
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .number(let n): hasher.combine(0 as UInt8); hasher.combine(n)
        case .name(let s):
            hasher.combine(1 as UInt8)
            // The bytes in one call (a 100,000-name list hashes every name several times).
            if s.utf8.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil {
                for byte in s.utf8 { hasher.combine(byte) }
            }
        }
    }
}
