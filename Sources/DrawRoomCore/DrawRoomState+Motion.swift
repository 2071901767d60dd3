import JSON
import Crypto
import DrawEngine

/// Ticks, the Stop's slow-down and the reveal.
extension DrawRoomState {
    // MARK: Ticks and the slow-down

    var tickInterval: Duration { .nanoseconds(1_000_000_000 / Int64(max(1, settings.tickHz))) }

    /// A tick, announced with its `seq`; during the slow-down with `landing` (docs/PROTOCOL.md,
    /// "Rolling and Stop"): the first winner and how far the slow-down has come, so every page
    /// lands it the same way (the last one is delivered in order, the others are latest values).
    mutating func announceTick(_ value: DrawValue, at time: Time, landing: DrawTick.Landing? = nil,
                                       _ actions: inout [Action]) {
        tickSeq += 1
        var tick = DrawTick(seq: tickSeq, at: time.wallMilliseconds, value: value, landing: landing)
        // Check-in with names public: the room reads the names rolling by, not entry ids (issue 34).
        // Not in a private draw: the names rolling by would be the pool's (docs/FAIRNESS.md §22).
        if isCheckinPool, !draw.config.isPrivate, checkin.book.settings.publicNames, case .name(let id) = value,
           let name = checkin.book.entry(id: id)?.name {
            tick.name = name
        }
        lastTick = tick
        actions.append(.announce(.tick(tick)))
    }

    mutating func stopMotion(_ actions: inout [Action]) {
        motion = nil
        actions.append(.cancel(.motion))
    }

    mutating func startRolling(at time: Time, using random: inout some RandomNumberGenerator,
                                       _ actions: inout [Action]) {
        actions.append(.cancel(.motion))
        motion = .rolling(due: time.instant)
        roll(at: time, using: &random, &actions)
    }

    /// Ticks are due at start + n × interval, so a late wake-up shortens the next wait instead
    /// of stretching every period. More than one tick behind, the schedule restarts from now
    /// rather than bursting to catch up: ticks are a latest-value stream.
    mutating func roll(at time: Time, using random: inout some RandomNumberGenerator, _ actions: inout [Action]) {
        guard case .rolling(var due) = motion, draw.phase == .rolling else {
            motion = nil
            return
        }
        announceTick(draw.rollingValue(using: &random), at: time, &actions)
        let interval = tickInterval
        due += interval
        if due < time.instant - interval { due = time.instant + interval }
        motion = .rolling(due: due)
        actions.append(.schedule(.motion, at: max(time.instant, due)))
    }

    /// Delays between slow-down ticks: from the tick interval, growing by a fifth each time,
    /// adding up to `settings.slowDown`; the last tick shows the first winner.
    public static func slowDownDelays(tickHz: Int, total: Duration) -> [Duration] {
        let totalMs = Double(total.components.seconds) * 1000 + Double(total.components.attoseconds) / 1e15
        var delays = [Double]()
        var next = 1000 / Double(max(1, tickHz))
        var sum = 0.0
        while sum + next < totalMs {
            delays.append(next)
            sum += next
            next *= 1.2
        }
        if totalMs - sum > 0 { delays.append(totalMs - sum) }
        return delays.map { .microseconds(Int64($0 * 1000)) }
    }

    /// The slow-down ends the draw's `slowDown` (else `settings.slowDown`) after the stop ran (`since`): the time its result
    /// took to be stored (an fsync) comes out of the slow-down, not on top of it.
    mutating func slowDown(at time: Time, since ranAt: ContinuousClock.Instant,
                                   using random: inout some RandomNumberGenerator, _ actions: inout [Action]) {
        guard case .round(let round)? = draw.lastResult?.body, let first = round.winners.first else {
            reveal(at: time, &actions)
            return
        }
        // The draw's own length (a display setting), else the server's.
        let total = draw.config.slowDown.map { Duration.milliseconds($0) } ?? settings.slowDown
        let left = total - (time.instant - ranAt)
        var delays = Self.slowDownDelays(tickHz: settings.tickHz, total: max(.zero, left))[...]
        guard let delay = delays.popFirst() else {
            // No time left (a slow store, or a new owner taking over late): it lands at once.
            announceTick(first, at: time, landing: DrawTick.Landing(first: first, step: 1, steps: 1), &actions)
            reveal(at: time, &actions)
            return
        }
        motion = .slowing(remaining: delays, first: first, step: 0, steps: delays.count + 1)
        actions.append(.schedule(.motion, at: time.instant + delay))
    }

    mutating func motionDue(at time: Time, using random: inout some RandomNumberGenerator,
                                    _ actions: inout [Action]) {
        switch motion {
        case nil:
            return
        case .rolling:
            roll(at: time, using: &random, &actions)
        case .slowing(var remaining, let first, let step, let steps):
            guard let delay = remaining.popFirst() else {
                announceTick(first, at: time, landing: DrawTick.Landing(first: first, step: steps, steps: steps), &actions)
                motion = nil
                reveal(at: time, &actions)
                return
            }
            announceTick(draw.rollingValue(using: &random), at: time,
                         landing: DrawTick.Landing(first: first, step: step + 1, steps: steps), &actions)
            motion = .slowing(remaining: remaining, first: first, step: step + 1, steps: steps)
            actions.append(.schedule(.motion, at: time.instant + delay))
        }
    }

    mutating func reveal(at time: Time, _ actions: inout [Action]) {
        guard (try? draw.reveal()) != nil else { return }
        let result = draw.lastResult?.resultMessage()
        // The winners' names first, so pages show the result with them.
        announceCheckinWinners(&actions)
        if let result { actions.append(.announce(.result(result))) }
        actions.append(.announce(.phase(.revealed)))
        if let commit = draw.commit { actions.append(.announce(.commit(commit))) }
        openClaims(at: time, &actions)
        // Each winner's phone gets its prize voucher (issue 45).
        sendVouchers(&actions)
        let waiters = revealWaiters
        revealWaiters = []
        let reply = CommandReply(ack: .object(["type": .string("ack"), "command": .string("stop")]), result: result)
        for waiter in waiters { deliver(.success(reply), for: waiter, &actions) }
    }
}
