/// Why a cluster-store operation failed. Each refusal of the round log is its own case, so
/// the owner can tell "I am no longer the owner" from "my view of the chain is stale" from
/// "this record is already stored".
public enum ClusterError: Error, Sendable, Equatable {
    /// Redis could not be reached or did not answer in time; for a write, whether it
    /// happened is unknown (retry with the same idempotency key to find out).
    case unavailable(RedisError)
    /// The caller's fencing token is not current, or its lease has expired: it is not the
    /// owner and must stop acting as one.
    case fenced(String)
    /// The record's `prev` is not the hash of the last stored record (here: `lastHash`).
    case chainMismatch(lastHash: String)
    /// The idempotency key was appended before, at `offset`.
    case duplicate(offset: String)
    /// Redis answered something this code does not expect (a bug or a foreign key).
    case unexpectedReply(String)
    /// Redis would lose acknowledged writes (see `DurabilityCheck`).
    case notDurable(appendonly: String, appendfsync: String)
}

extension ClusterError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .unavailable(let error): "cluster store unavailable: \(error)"
        case .fenced(let detail): "fenced: \(detail)"
        case .chainMismatch(let lastHash): "the record does not follow the last stored record (\(lastHash))"
        case .duplicate(let offset): "the record was already appended (stream offset \(offset))"
        case .unexpectedReply(let detail): "unexpected reply from Redis: \(detail)"
        case .notDurable(let appendonly, let appendfsync):
            "Redis would lose acknowledged writes (appendonly \(appendonly), appendfsync \(appendfsync)); "
                + "cluster mode needs appendonly yes and appendfsync always. Set them in redis.conf "
                + "(or CONFIG SET appendonly yes, CONFIG SET appendfsync always) or override with the "
                + "unsafe-Redis flag, accepting that a Redis crash may lose announced records"
        }
    }
}

extension ClusterError {
    /// Maps a transport failure; server errors become `.unexpectedReply`.
    init(_ error: RedisError) {
        if case .server(let message) = error {
            self = .unexpectedReply(message)
        } else {
            self = .unavailable(error)
        }
    }
}
