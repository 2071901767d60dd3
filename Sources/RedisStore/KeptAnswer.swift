/// The answer to one host command, kept in the draw's `acks` hash so that the same command
/// resent later (to this owner or to the next one) gets it again instead of running twice.
public struct KeptAnswer: Sendable, Equatable {
    /// The host client's id (`""` when it sent none).
    public var client: String
    public var seq: Int64
    /// The answer as JSON text (no newline: canonical JSON escapes it).
    public var text: String
    /// The draw's answers expire this long after the last one is kept.
    public var ttl: Duration
    /// How many answers are kept per client (the oldest go first).
    public var keep: Int

    public init(client: String, seq: Int64, text: String, ttl: Duration, keep: Int) {
        self.client = client
        self.seq = seq
        self.text = text
        self.ttl = ttl
        self.keep = keep
    }

    /// ARGV as `ClusterScripts.keepAnswerFunction` reads them.
    var arguments: [[UInt8]] {
        [bytes(client), bytes(seq), bytes(text), bytes(ttl.milliseconds), bytes(keep)]
    }
}
