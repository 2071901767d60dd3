/// Why a Redis command did not produce a reply. The texts are for logs, never for clients.
public enum RedisError: Error, Sendable, Equatable {
    /// Redis answered with an error reply (`-ERR …`, `-NOSCRIPT …`, a script's own error).
    case server(String)
    /// No reply within the command's timeout. If the command had been sent, the connection
    /// is reset (replies come in order, so a late one would be given to the wrong command),
    /// and whether Redis executed it is unknown.
    case timedOut
    /// The connection dropped after the command was sent; whether it ran is unknown.
    case connectionLost
    /// Too many commands are waiting for a connection.
    case queueFull
    /// The client was closed.
    case closed
    /// hiredis refused the command (the context is shutting down).
    case rejected
    /// The write ran on the primary but `WAIT` counted fewer replicas than required before
    /// its timeout (`RedisOptions.replicaAcks`): it may be lost if the primary dies now.
    case notReplicated(acknowledged: Int, required: Int)

    /// The first word of a server error (`NOSCRIPT`, `LOADING`, `FENCED`…).
    public var serverCode: String? {
        guard case .server(let message) = self else { return nil }
        return message.split(separator: " ", maxSplits: 1).first.map(String.init)
    }
}

extension RedisError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .server(let message): "Redis error: \(message)"
        case .timedOut: "Redis did not answer in time"
        case .connectionLost: "the connection to Redis was lost"
        case .queueFull: "too many commands are waiting for Redis"
        case .closed: "the Redis client is closed"
        case .rejected: "the Redis connection is shutting down"
        case .notReplicated(let acknowledged, let required):
            "the write reached \(acknowledged) of the \(required) replicas required in time"
        }
    }
}
