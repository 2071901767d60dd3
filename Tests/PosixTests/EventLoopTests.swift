import Glibc
import Posix
import Synchronization
import Testing

@Suite struct EventLoopTests {
    @Test func executeRunsTasksOnTheLoopThreadInSubmissionOrder() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.next()
        let seen = Recorder<(Int, Bool)>()
        for i in 0..<100 { loop.execute { seen.append((i, loop.inEventLoop)) } }
        let values = seen.wait { $0.count == 100 }
        #expect(values.map(\.0) == Array(0..<100))
        #expect(values.allSatisfy { $0.1 })
        #expect(!loop.inEventLoop)
    }

    @Test func executeFromManyThreadsRunsEveryTaskExactlyOnce() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.next()
        let counter = Recorder<Int>()
        let threads = 4, perThread = 500
        var ids: [pthread_t] = []
        for t in 0..<threads {
            let box = Unmanaged.passRetained(Submitter(loop: loop, base: t * perThread, count: perThread, counter: counter))
            var id = pthread_t()
            pthread_create(&id, nil, { raw in
                let submitter = Unmanaged<Submitter>.fromOpaque(raw!).takeRetainedValue()
                submitter.run()
                return nil
            }, box.toOpaque())
            ids.append(id)
        }
        for id in ids { pthread_join(id, nil) }
        let values = counter.wait { $0.count >= threads * perThread }
        #expect(values.sorted() == Array(0..<threads * perThread))
    }

    @Test func timersFireInDeadlineOrderAndNotEarly() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.next()
        let fired = Recorder<(Int, UInt64)>()
        let start = Recorder<UInt64>()
        loop.execute {
            start.append(MonotonicClock.nanoseconds())
            for (label, ms) in [(3, 60), (1, 20), (2, 40), (0, 0)] {
                loop.scheduleTimer(after: .milliseconds(ms)) { fired.append((label, MonotonicClock.nanoseconds())) }
            }
        }
        let values = fired.wait { $0.count == 4 }
        #expect(values.map(\.0) == [0, 1, 2, 3])
        let begin = try #require(start.all.first)
        for (label, at) in values {
            #expect(at - begin >= UInt64(label * 20) * 1_000_000, "timer \(label) fired early")
        }
    }

    @Test func cancelledTimerNeverFiresEvenWhenCancelledFromAnotherThread() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.next()
        let fired = Recorder<String>()
        let handles = Recorder<ScheduledTimer>()
        loop.execute {
            // Due in 3 s, so the cancel below surely comes first even on a loaded machine; the kept
            // timer is due after it, so a cancel that did not work shows up before "kept".
            handles.append(loop.scheduleTimer(after: .seconds(3)) { fired.append("cancelled") })
            loop.scheduleTimer(after: .milliseconds(3100)) { fired.append("kept") }
        }
        let handle = try #require(handles.wait { !$0.isEmpty }.first)
        handle.cancel()
        #expect(fired.wait(timeout: .seconds(10)) { $0.contains("kept") } == ["kept"])
    }

    @Test func groupHandsOutLoopsRoundRobin() throws {
        let group = try EventLoopGroup(loopCount: 3)
        defer { group.shutdown() }
        let picked = (0..<6).map { _ in group.next().index }
        #expect(picked == [0, 1, 2, 0, 1, 2])
    }

    @Test func loopBoundValueIsUsableBackOnItsLoop() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.next()
        final class Box { var count = 0 }
        let bound = Recorder<LoopBound<Box>>()
        loop.execute { bound.append(LoopBound(Box(), loop: loop)) }
        let box = try #require(bound.wait { !$0.isEmpty }.first)
        let result = Recorder<Int>()
        box.execute { $0.count += 41 }
        box.execute { $0.count += 1; result.append($0.count) }
        #expect(result.wait { !$0.isEmpty } == [42])
    }

    @Test func aStoppedLoopReleasesItsTimersAndLateTasksAndIsFreed() throws {
        final class Token: Sendable {}
        weak var weakLoop: EventLoop?
        weak var weakToken: Token?
        let ran = Recorder<String>()
        do {
            let group = try EventLoopGroup(loopCount: 1)
            let loop = group.next()
            weakLoop = loop
            loop.execute {
                // A far-off timer whose action holds the loop: a cycle until the loop drops it.
                loop.scheduleTimer(after: .seconds(3600)) { _ = loop; ran.append("timer") }
                ran.append("scheduled")
            }
            ran.wait { $0.contains("scheduled") }
            group.shutdown()
            let token = Token()
            weakToken = token
            loop.execute { _ = token; _ = loop; ran.append("late task") }
        }
        #expect(weakToken == nil, "a task posted after stop is still held")
        #expect(weakLoop == nil, "the stopped loop is still alive")
        #expect(ran.all == ["scheduled"])
    }
}

private final class Submitter: Sendable {
    let loop: EventLoop, base: Int, count: Int, counter: Recorder<Int>
    init(loop: EventLoop, base: Int, count: Int, counter: Recorder<Int>) {
        self.loop = loop; self.base = base; self.count = count; self.counter = counter
    }
    func run() {
        for i in base..<(base + count) {
            let counter = self.counter
            loop.execute { counter.append(i) }
        }
    }
}
