import Posix

/// Token buckets in Redis that every instance of the cluster spends from, so a rate limit
/// holds for the cluster as a whole (SECURITY.md §8a). One Lua script refills and spends any
/// number of buckets in one round trip; spends made while a round trip is in flight wait and
/// go out together in the next one.
///
/// A bucket may go into debt (down to minus its burst): an instance that had not yet heard
/// that it was empty lets one attempt through, and the debt is paid back before anyone's next
/// one, so over time the cluster allows exactly the documented rate.
///
/// `@unchecked Sendable`: the mutable state is used only on `client.loop`; `spend` hops there.
public final class SharedRateLimits: @unchecked Sendable {
    public let client: RedisClient
    private let script = RedisScript(SharedRateLimits.source)
    private struct Spend {
        var key: String
        var burst: Int
        var refillMilliseconds: Double
        var answer: @Sendable (Double?) -> Void
    }
    private var pending: [Spend] = []
    private var inFlight = false
    /// Buckets spent per round trip at most.
    static let batchLimit = 256
    /// Every bucket's key starts with this (one hash slot).
    public static let prefix = "{tombola:limits}:"

    public init(client: RedisClient) {
        self.client = client
    }

    /// Spends one token of bucket `key` (`burst` tokens, one more every `refill`) and hands
    /// `answer` the tokens left cluster-wide (below 1: the next attempt must wait; negative:
    /// debt), or nil when Redis could not be asked (the caller keeps its local bucket). Any
    /// thread; `answer` runs on the client's loop, exactly once.
    public func spend(_ key: String, burst: Int, refill: Duration, answer: @escaping @Sendable (Double?) -> Void) {
        let milliseconds = max(0.001, Double(refill.wholeNanoseconds) / 1e6)
        let spend = Spend(key: Self.prefix + key, burst: burst, refillMilliseconds: milliseconds, answer: answer)
        client.loop.execute { [self] in
            pending.append(spend)
            flush()
        }
    }

    private func flush() {
        guard !inFlight, !pending.isEmpty else { return }
        let batch = Array(pending.prefix(Self.batchLimit))
        pending.removeFirst(batch.count)
        inFlight = true
        var arguments: [[UInt8]] = []
        for spend in batch {
            arguments += [bytes(spend.burst), bytes(String(spend.refillMilliseconds)), bytes("1")]
        }
        script.run(on: client, keys: batch.map(\.key), arguments: arguments, timeout: .seconds(1)) { [self] result in
            inFlight = false
            if case .success(let reply) = result, let left = reply.array, left.count == batch.count {
                for (spend, tokens) in zip(batch, left) { spend.answer(tokens.string.flatMap(Double.init)) }
            } else {
                for spend in batch { spend.answer(nil) }
            }
            flush()
        }
    }

    /// KEYS: buckets. ARGV per bucket: burst, refill (ms per token), tokens to spend.
    /// Each bucket is a hash {tokens, at (ms, Redis's clock)}; missing means full. Refills by the
    /// time passed, spends (down to -burst), expires once it would be full again.
    /// → the tokens left per bucket, as text.
    static let source = """
        local t = redis.call('TIME')
        local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
        local out = {}
        for i = 1, #KEYS do
          local burst = tonumber(ARGV[i * 3 - 2])
          local refill = tonumber(ARGV[i * 3 - 1])
          local spend = tonumber(ARGV[i * 3])
          local stored = redis.call('HMGET', KEYS[i], 'tokens', 'at')
          local tokens = tonumber(stored[1]) or burst
          local at = tonumber(stored[2]) or now
          tokens = math.min(burst, tokens + math.max(0, now - at) / refill)
          tokens = math.max(-burst, tokens - spend)
          redis.call('HSET', KEYS[i], 'tokens', tostring(tokens), 'at', tostring(now))
          redis.call('PEXPIRE', KEYS[i], math.ceil((burst - tokens) * refill) + 1000)
          out[i] = tostring(tokens)
        end
        return out
        """
}
