import Testing
@testable import Posix

@Suite struct TimerQueueTests {
    /// SplitMix64, so the sequence is the same everywhere.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test(arguments: [1, 2, 3, 42, 1234])
    func popsLiveTimersInDeadlineOrder(seed: UInt64) {
        var rng = SeededGenerator(state: seed)
        var queue = TimerQueue()
        var expected: [(UInt64, UInt64)] = []
        var cancelled = Set<UInt64>()
        final class Log { var fired: [UInt64] = [] }
        let log = Log()
        // Each action logs its scheduling position; ties fire in scheduling order.
        for position in UInt64(0)..<500 {
            let deadline = UInt64.random(in: 0..<1000, using: &rng)
            let id = queue.schedule(at: deadline) { log.fired.append(position) }
            expected.append((deadline, position))
            if Bool.random(using: &rng) && Bool.random(using: &rng) {
                queue.cancel(id)
                cancelled.insert(position)
            }
        }
        let live = expected.filter { !cancelled.contains($0.1) }.sorted { $0 < $1 }
        #expect(queue.nextDeadline() == live.first?.0, "seed \(seed)")
        for action in queue.popDue(now: 499) { action() }
        for action in queue.popDue(now: 10_000) { action() }
        #expect(log.fired == live.map(\.1), "seed \(seed)")
        #expect(queue.count == 0)
        #expect(queue.nextDeadline() == nil)
    }
}
