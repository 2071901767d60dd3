/// The Lua scripts of the cluster store. Each runs atomically in Redis and touches only the
/// keys of one draw (one hash slot), passed in KEYS.
enum ClusterScripts {
    /// KEYS: lease, fence. ARGV: owner, ttl (ms).
    /// → {1, token} when acquired (the fence counter is incremented in the same step), or
    /// {0, "<token>:<owner>"} of the current holder.
    static let acquire = """
        local holder = redis.call('GET', KEYS[1])
        if holder then return {0, holder} end
        local token = redis.call('INCR', KEYS[2])
        redis.call('SET', KEYS[1], token .. ':' .. ARGV[1], 'NX', 'PX', ARGV[2])
        return {1, token}
        """

    /// KEYS: lease. ARGV: "<token>:<owner>", ttl (ms). → 1 when still ours and extended, else 0.
    static let renew = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then
          redis.call('PEXPIRE', KEYS[1], ARGV[2])
          return 1
        end
        return 0
        """

    /// KEYS: lease. ARGV: "<token>:<owner>". → 1 when it was ours and is deleted, else 0.
    static let release = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
        return 0
        """

    /// The fencing check every owner's write starts with (KEYS[1] lease, KEYS[2] fence; ARGV[1]
    /// lease value, ARGV[2] token): FENCED, before anything is written, unless the token is the
    /// fence's value and the lease is held with it. (Also the check-in and audit scripts'.)
    static let fenceCheck = """
        local fence = redis.call('GET', KEYS[2])
        if fence ~= ARGV[2] then
          return redis.error_reply('FENCED token ' .. ARGV[2] .. ' is not current (fence ' .. tostring(fence) .. ')')
        end
        if redis.call('GET', KEYS[1]) ~= ARGV[1] then
          return redis.error_reply('FENCED the lease of token ' .. ARGV[2] .. ' has expired')
        end

        """

    /// The first checks of `append` and `appendBatch` (`fenceCheck`; KEYS[4] idempotency keys,
    /// ARGV[3] idempotency key): DUPLICATE (naming the first attempt's offset) when the
    /// idempotency key was appended before.
    static let fenceAndDuplicateChecks = fenceCheck + """
        local seen = redis.call('HGET', KEYS[4], ARGV[3])
        if seen then
          redis.call('HSET', KEYS[4], ARGV[3], seen)
          return redis.error_reply('DUPLICATE ' .. seen)
        end

        """

    /// `lastOfLog(log, genesis)`: the log's last entry (empty table for an empty log) and its
    /// record's hash (`genesis` for an empty log; nil when the last entry has no hash).
    static let lastOfLogFunction = """
        local function lastOfLog(log, genesis)
          local last = redis.call('XREVRANGE', log, '+', '-', 'COUNT', 1)
          if #last == 0 then return last, genesis end
          local fields = last[1][2]
          for i = 1, #fields, 2 do
            if fields[i] == 'hash' then return last, fields[i + 1] end
          end
          return last, nil
        end

        """

    /// KEYS: lease, fence, log, idem, epoch.
    /// ARGV: lease value, token, idempotency key, index, hash, prev, json, genesis prev, new epoch.
    /// Checks in this order, each refusal its own error code:
    ///  FENCED    the token is not the fence counter's value, or the lease is not held with it;
    ///  DUPLICATE the idempotency key was appended before (the reply names its offset, so a
    ///            retry after an unknown outcome learns that the first attempt landed; the key
    ///            is written again, so a `WAIT` after this reply covers the first attempt too);
    ///  CHAIN     prev is not the hash of the last record (the genesis value for the first).
    /// Then XADDs the record and remembers the key. → {offset, epoch}.
    static let append = fenceAndDuplicateChecks + lastOfLogFunction + """
        local last, lastHash = lastOfLog(KEYS[3], ARGV[8])
        if not lastHash then return redis.error_reply('CHAIN the last record has no hash') end
        if ARGV[6] ~= lastHash then return redis.error_reply('CHAIN ' .. lastHash) end
        local epoch
        if #last == 0 then
          redis.call('SET', KEYS[5], ARGV[9])
          epoch = ARGV[9]
        else
          epoch = redis.call('GET', KEYS[5]) or ''
        end
        local id = redis.call('XADD', KEYS[3], '*', 'index', ARGV[4], 'hash', ARGV[5], 'prev', ARGV[6],
          'json', ARGV[7], 'token', ARGV[2], 'key', ARGV[3])
        redis.call('HSET', KEYS[4], ARGV[3], id)
        return {id, epoch}
        """

    /// One host command's write, all or nothing: any number of records (each linking to the
    /// one before) and optionally the draw's new settings.
    /// KEYS: lease, fence, log, idem, epoch, meta, acks.
    /// ARGV: lease value, token, idempotency key, genesis prev, new epoch, config ('' for none),
    /// record count n, then per record: index, hash, prev, json, seal, signature ('' for none); then optionally the host
    /// command's answer, kept with the records (`keepAnswerFunction`): client, seq, answer, ttl, keep.
    /// The same checks and refusals as `append` (FENCED, DUPLICATE, CHAIN, here also for a
    /// link inside the batch), then XADDs every record, sets `config` in meta, remembers the
    /// key with the first record's offset. → {last offset ('' without records), epoch}.
    static let appendBatch = keepAnswerFunction + fenceAndDuplicateChecks + lastOfLogFunction + """
        local n = tonumber(ARGV[7])
        local last, lastHash = lastOfLog(KEYS[3], ARGV[4])
        if not lastHash then return redis.error_reply('CHAIN the last record has no hash') end
        local expected = lastHash
        for r = 0, n - 1 do
          if ARGV[8 + r * 6 + 2] ~= expected then return redis.error_reply('CHAIN ' .. lastHash) end
          expected = ARGV[8 + r * 6 + 1]
        end
        local epoch
        if #last == 0 and n > 0 then
          redis.call('SET', KEYS[5], ARGV[5])
          epoch = ARGV[5]
        else
          epoch = redis.call('GET', KEYS[5]) or ''
        end
        local first = nil
        local id = ''
        for r = 0, n - 1 do
          local b = 8 + r * 6
          local fields = {'index', ARGV[b], 'hash', ARGV[b + 1], 'prev', ARGV[b + 2], 'json', ARGV[b + 3],
            'token', ARGV[2], 'key', ARGV[3]}
          if ARGV[b + 4] ~= '' then fields[#fields + 1] = 'seal'; fields[#fields + 1] = ARGV[b + 4] end
          if ARGV[b + 5] ~= '' then fields[#fields + 1] = 'sig'; fields[#fields + 1] = ARGV[b + 5] end
          id = redis.call('XADD', KEYS[3], '*', unpack(fields))
          first = first or id
        end
        if ARGV[6] ~= '' then redis.call('HSET', KEYS[6], 'config', ARGV[6]) end
        redis.call('HSET', KEYS[4], ARGV[3], first or ('config@' .. ARGV[2]))
        if #ARGV >= 8 + n * 6 + 4 then keepAnswer(KEYS[7], 8 + n * 6) end
        return {id, epoch}
        """

    /// KEYS: lease, fence, target. ARGV: lease value, token, value.
    /// SET target value only while the caller holds the lease with a current token. → 1 or 0.
    static let setIfOwner = """
        if redis.call('GET', KEYS[2]) ~= ARGV[2] or redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
        redis.call('SET', KEYS[3], ARGV[3])
        return 1
        """

    /// KEYS: lease, fence, tickseq. ARGV: lease value, token, channel, seq, message.
    /// Only while the caller holds the lease with a current token: raises `tickseq` to seq
    /// (never lowers it) and publishes message on channel. → 1, or 0 when fenced.
    static let publishTick = """
        if redis.call('GET', KEYS[2]) ~= ARGV[2] or redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
        if tonumber(redis.call('GET', KEYS[3]) or '0') < tonumber(ARGV[4]) then redis.call('SET', KEYS[3], ARGV[4]) end
        redis.call('PUBLISH', ARGV[3], ARGV[5])
        return 1
        """

    /// A Lua function: appends `seq\tanswer` to host client ARGV[a]'s field of the hash `acks`
    /// (ARGV[a+1] seq, ARGV[a+2] answer, ARGV[a+3] ttl in ms, ARGV[a+4] how many to keep per
    /// client), dropping the oldest, and renews the hash's expiry.
    static let keepAnswerFunction = """
        local function keepAnswer(acks, a)
          local lines = {}
          local old = redis.call('HGET', acks, ARGV[a])
          if old then
            for line in string.gmatch(old, '[^\\n]+') do lines[#lines + 1] = line end
          end
          lines[#lines + 1] = ARGV[a + 1] .. '\\t' .. ARGV[a + 2]
          while #lines > tonumber(ARGV[a + 4]) do table.remove(lines, 1) end
          redis.call('HSET', acks, ARGV[a], table.concat(lines, '\\n'))
          redis.call('PEXPIRE', acks, ARGV[a + 3])
        end

        """

    /// KEYS: lease, fence, acks, target. ARGV: lease value, token, target value ('' for none),
    /// client, seq, answer (JSON), ttl (ms), how many answers to keep per client.
    /// Only while the caller holds the lease with a current token: SETs target (when a value is
    /// given) and keeps the answer (`keepAnswerFunction`), in one step. → 1, or 0 when fenced.
    static let rememberAnswer = keepAnswerFunction + """
        if redis.call('GET', KEYS[2]) ~= ARGV[2] or redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
        if ARGV[3] ~= '' then redis.call('SET', KEYS[4], ARGV[3]) end
        keepAnswer(KEYS[3], 4)
        return 1
        """

    /// KEYS: log, epoch, and behind Sentinel the read mark. ARGV: first offset (inclusive, or '-'), count.
    /// → {epoch or '', XRANGE entries}, read together so they describe one moment. With the
    /// read mark, INCRs it: a write after everything this read saw, which the `WAIT` behind it covers.
    static let read = """
        if KEYS[3] then redis.call('INCR', KEYS[3]) end
        return {redis.call('GET', KEYS[2]) or '', redis.call('XRANGE', KEYS[1], ARGV[1], '+', 'COUNT', ARGV[2])}
        """
}
