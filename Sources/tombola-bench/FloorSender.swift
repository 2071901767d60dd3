import CLinux
import Glibc

/// How `floor` hands each frame to the kernel.
enum FloorMode: String, CaseIterable {
    /// One `write` system call per socket.
    case write
    /// Batches of `send`s through one io_uring, one `io_uring_enter` per batch.
    case uring
}

/// What the writer did during the sending period.
struct FloorSendTotals {
    var ticks = 0
    var attempted = 0
    var completed = 0
    var wouldBlock = 0
    var short = 0
    var failed = 0
    var bytes = 0
    var cpuSeconds = 0.0
    var wallSeconds = 0.0

    mutating func count(result: Int, length: Int, code: Int32) {
        attempted += 1
        if result == length {
            completed += 1
            bytes += result
        } else if result >= 0 {
            short += 1
            bytes += result
        } else if code == EAGAIN || code == EWOULDBLOCK {
            wouldBlock += 1
        } else {
            failed += 1
        }
    }
}

/// A `length`-byte unmasked WebSocket text frame of 'x's (RFC 6455 §5.2), or nil when no
/// frame has exactly that size with a minimal length encoding (0–1, 128–129 bytes, > 65539).
func floorFrame(bytes length: Int) -> [UInt8]? {
    if (2...127).contains(length) {
        return [0x81, UInt8(length - 2)] + Array(repeating: UInt8(ascii: "x"), count: length - 2)
    }
    if (130...65539).contains(length) {
        let payload = length - 4
        return [0x81, 126, UInt8(payload >> 8), UInt8(payload & 0xff)] + Array(repeating: UInt8(ascii: "x"), count: payload)
    }
    return nil
}

/// One io_uring (CLinux) for batched sends, owned by the thread that made it; freed in `deinit`.
final class SendRing {
    private let ring: UnsafeMutablePointer<clinux_uring>
    /// Submission slots: sends queued before each `io_uring_enter`.
    let entries: Int

    /// A ring of `entries` slots, or the negative errno from `io_uring_setup`/`mmap`.
    init(entries: Int) throws(SendRingError) {
        ring = .allocate(capacity: 1)
        let result = clinux_uring_init(ring, UInt32(entries))
        guard result == 0 else {
            ring.deallocate()
            throw SendRingError(code: -result)
        }
        self.entries = Int(ring.pointee.entries)
    }

    deinit {
        clinux_uring_free(ring)
        ring.deallocate()
    }

    /// Sends `frame` once on every descriptor, `entries` at a time.
    func sendAll(_ fds: [Int32], frame: UnsafeRawBufferPointer, into totals: inout FloorSendTotals) {
        var start = 0
        while start < fds.count {
            var end = start
            while end < fds.count, end - start < entries,
                  clinux_uring_prepare_send(ring, fds[end], frame.baseAddress, frame.count, UInt64(end)) == 0 {
                end += 1
            }
            let submitted = clinux_uring_submit_and_wait(ring)
            var completions = 0
            var tag: UInt64 = 0
            var result: Int32 = 0
            while clinux_uring_next_completion(ring, &tag, &result) == 1 {
                completions += 1
                totals.count(result: Int(result), length: frame.count, code: result < 0 ? -result : 0)
            }
            // Sends the kernel never took (a failed submit) count as failed writes.
            let missing = end - start - completions
            totals.attempted += missing
            totals.failed += missing
            if submitted < 0 || end == start { break }
            start = end
        }
    }
}

struct SendRingError: Error {
    /// The positive errno (ENOSYS: no io_uring; EPERM: disabled by sysctl or seccomp).
    var code: Int32
}

/// Writes one frame to every socket each 1/hz s on the calling thread, ticks due at
/// start + n·interval (a late tick is sent at once, never skipped), for `seconds`.
struct FloorSender {
    var fds: [Int32]
    var frame: [UInt8]
    var hz: Double
    var seconds: Double

    func run(_ mode: FloorMode, ring: SendRing?) -> FloorSendTotals {
        var totals = FloorSendTotals()
        let ticks = max(1, Int((seconds * hz).rounded()))
        let interval = 1 / hz
        frame.withUnsafeBytes { frame in
            let cpuBefore = FloorSockets.threadCPUSeconds
            let start = FloorSockets.now
            for tick in 0..<ticks {
                FloorSockets.sleep(until: start + Double(tick) * interval)
                switch mode {
                case .write:
                    for fd in fds {
                        let result = Glibc.write(fd, frame.baseAddress, frame.count)
                        totals.count(result: result, length: frame.count, code: result < 0 ? clinux_errno() : 0)
                    }
                case .uring:
                    ring?.sendAll(fds, frame: frame, into: &totals)
                }
                totals.ticks += 1
            }
            // The period is whole intervals, so cores = CPU / period even when idle at the end.
            FloorSockets.sleep(until: start + Double(ticks) * interval)
            totals.wallSeconds = FloorSockets.now - start
            totals.cpuSeconds = FloorSockets.threadCPUSeconds - cpuBefore
        }
        return totals
    }
}
