import DrawRoomCore
import DrawEngine
import Server

/// A stored draw read back on its first use (issue 18): the room exists at once (so concurrent
/// first requests share it), and what reaches it waits, in arrival order, until the service has
/// read the draw and stored this run's `restart` commitment (`finishLoading`). A `configure`
/// that names draws not read yet waits for them the same way, so their winners are known
/// when the settings are checked and locked.
extension DrawRoom {
    /// Runs `body` on the loop once the room takes events (at once when it does), after
    /// everything that arrived before it. `fail` answers instead if the draw could not be read.
    /// From any thread.
    func whenReady(_ body: @escaping @Sendable () -> Void, otherwise fail: (@Sendable () -> Void)? = nil) {
        loop.execute { [self] in
            if loadFailed { fail?(); return }
            if holds == 0, waitingHead == waiting.count { return body() }
            waiting.append((body, fail))
        }
    }

    /// Runs `body` on the loop once this room's draw is read (its winners are known), or reading
    /// it failed. From any thread.
    func whenRestored(_ body: @escaping @Sendable () -> Void) {
        loop.execute { [self] in
            if isLoaded || loadFailed { return body() }
            restoredWaiters.append(body)
        }
    }

    /// The draw as the service read it back (with this run's commitment stored), or why not.
    /// From any thread.
    /// `interrupted`: the round the previous run left rolling (announced in `state` until the next Start).
    /// `resumed`: the round the previous run left rolling, carried on (`Draw.resumeRolling`): it rolls again.
    func finishLoading(_ result: Result<(draw: Draw, checkin: CheckinBook, interrupted: Int?, resumed: Int?), any Error>) {
        loop.execute { [self] in
            switch result {
            case .success(let loaded):
                load(DrawRoomState(code: code, draw: loaded.draw, settings: settings, book: loaded.checkin,
                                   interrupted: loaded.interrupted, resumed: loaded.resumed, links: links))
                publishedRecords = loaded.draw.recordCount
                publishWinners(loaded.draw.winnersForExclusion(code: code))
                // A beacon-sealed round read back while waiting for its drand round rolls on and fetches it.
                if loaded.draw.sealing != nil { apply(.resumeSealed) }
                // A round the previous run left rolling, resumed on its lock: it rolls on to the same winners.
                if loaded.resumed != nil { apply(.resumeRolling) }
                let waiters = restoredWaiters
                restoredWaiters = []
                for waiter in waiters { waiter() }
                // The draws this one excludes the winners of are read before its first event,
                // so a Start resolves their winners as it did when every draw was read at start-up.
                let linked = loaded.draw.config.excludeWinnersOf.map(\.code)
                if linked.isEmpty { return release() }
                links.load(linked) { [self] in loop.execute { [self] in release() } }
            case .failure(let error):
                DrawLog.error("reading draw \(code) failed: \(error)", code: code)
                loadFailed = true
                let pending = waiting[waitingHead...]
                waiting = []
                waitingHead = 0
                for entry in pending { entry.fail?() }
                let waiters = restoredWaiters
                restoredWaiters = []
                for waiter in waiters { waiter() }
            }
        }
    }

    /// Runs `body` (on the loop, before anything queued after it) once the stored draws among
    /// `codes` are read; at once when they already are. Loop only.
    func afterLinkedDraws(_ codes: [String], _ body: @escaping () -> Void) {
        let codes = codes.map { EntrantList.trim($0) }.filter { $0 != code }
        guard links.needsLoading(codes) else { return body() }
        holds += 1
        if waitingHead > 0 {
            waitingHead -= 1
            waiting[waitingHead] = (body, nil)
        } else {
            waiting.insert((body, nil), at: 0)
        }
        links.load(codes) { [self] in loop.execute { [self] in release() } }
    }

    /// One reason to wait is gone: runs what waited while nothing else holds the room. Loop only.
    func release() {
        holds -= 1
        while holds == 0, waitingHead < waiting.count {
            let next = waiting[waitingHead]
            waiting[waitingHead] = ({}, nil)
            waitingHead += 1
            next.run()
        }
        if waitingHead == waiting.count {
            waiting = []
            waitingHead = 0
        }
    }

    /// The draws a `configure` message links (`excludeWinnersOf`), or nil for any other message.
    /// Parses only texts that mention the field (the state machine parses every message again).
    static func linkedCodes(inMessage text: String) -> [String]? {
        guard text.contains("excludeWinnersOf"),
              case .command(.configure(let config), _)? = try? DrawMessageParser.parse(text),
              !config.excludeWinnersOf.isEmpty else { return nil }
        return config.excludeWinnersOf.map(\.code)
    }
}
