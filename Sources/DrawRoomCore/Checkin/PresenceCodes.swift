import Crypto

/// The presence code the screen shows: 4 digits that change every 30 s, derived from a secret
/// made at start-up (HMAC-SHA-256 of the window number), so only people who see the screen
/// can type it. A code stays accepted 10 s into the next window (the time to type it).
public struct PresenceCodes: Sendable {
    public static let windowMilliseconds: Int64 = 30_000
    public static let graceMilliseconds: Int64 = 10_000
    private let secret: [UInt8]

    public init(secret: [UInt8]) {
        self.secret = secret
    }

    public init() {
        self.init(secret: SecureRandom.bytes(count: 32))
    }

    public func code(window: Int64) -> String {
        var message = Array("tombola-presence-v1".utf8)
        for shift in stride(from: 56, through: 0, by: -8) { message.append(UInt8(truncatingIfNeeded: window >> Int64(shift))) }
        let mac = HMACSHA256.authenticationCode(key: secret, message: message)
        let number = (UInt32(mac[0]) << 24 | UInt32(mac[1]) << 16 | UInt32(mac[2]) << 8 | UInt32(mac[3])) % 10_000
        let digits = String(number)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// The code to show at `unixMilliseconds` and when it changes.
    public func current(at unixMilliseconds: Int64) -> (code: String, changesAt: Int64) {
        let window = unixMilliseconds / Self.windowMilliseconds
        return (code(window: window), (window + 1) * Self.windowMilliseconds)
    }

    /// Whether `typed` is the current code, or the previous one within the grace time.
    public func accepts(_ typed: String, at unixMilliseconds: Int64) -> Bool {
        let window = unixMilliseconds / Self.windowMilliseconds
        if typed == code(window: window) { return true }
        return unixMilliseconds - window * Self.windowMilliseconds < Self.graceMilliseconds && typed == code(window: window - 1)
    }
}
