import CLinux
import Glibc

/// Whether a loop may send through io_uring.
public enum SendBatching: Sendable {
    /// Use io_uring when the kernel offers it, plain `write` otherwise.
    case automatic
    /// Always plain `write`/`writev`.
    case off
}

/// Many small sends submitted with one system call, for the flush phase of a loop.
///
/// A broadcast queues the same bytes on thousands of sockets in one iteration. Writing
/// them one `write` at a time costs one system call each; here they are queued as io_uring
/// sends and submitted in batches of `capacity`, which took 5–8% off the cost per socket
/// on loopback (BENCHMARKS.md, "The kernel floor"). The bytes are copied into `arena` first
/// (once per distinct chunk: consecutive sockets sharing a frame share the copy), so no
/// pointer into a Swift array escapes its `withUnsafeBytes`.
///
/// Loop-confined: created, used and freed on the loop's thread (the ring is set up with
/// `IORING_SETUP_SINGLE_ISSUER`).
final class SendRing {
    static let capacity: UInt32 = 256
    static let arenaSize = 256 * 1024

    private let ring: UnsafeMutablePointer<clinux_uring>
    private let arena: UnsafeMutableRawBufferPointer
    private var arenaUsed = 0
    /// The connection behind each queued send; a completion's tag is its index here.
    private var queued: [TCPConnection] = []
    /// The batch being completed, and which of its sends have a completion (kept between
    /// batches so that submitting allocates nothing).
    private var inFlight: [TCPConnection] = []
    private var completed: [Bool] = []
    /// The last chunk copied, to share its copy with the next socket sending the same bytes.
    private var lastSource: UnsafeRawPointer?
    private var lastCount = 0
    private var lastCopy: UnsafeRawPointer?
    /// Set when a submission failed as a whole; the ring is not used again.
    private var broken = false

    /// Nil when the kernel has no usable io_uring (too old, disabled, or refused by a
    /// seccomp filter); the loop then writes with plain system calls.
    init?() {
        ring = .allocate(capacity: 1)
        guard clinux_uring_init(ring, Self.capacity) == 0 else {
            ring.deallocate()
            return nil
        }
        arena = .allocate(byteCount: Self.arenaSize, alignment: 16)
        queued.reserveCapacity(Int(Self.capacity))
        inFlight.reserveCapacity(Int(Self.capacity))
        completed.reserveCapacity(Int(Self.capacity))
    }

    deinit {
        clinux_uring_free(ring)
        ring.deallocate()
        arena.deallocate()
    }

    /// Queues `bytes` (the head of `connection`'s output) for sending; false when they
    /// are too large for the arena, and the caller writes them itself. Sends may be
    /// submitted, and their completions delivered, before this returns.
    func enqueue(_ connection: TCPConnection, bytes: UnsafeRawBufferPointer) -> Bool {
        guard !broken, bytes.count > 0, bytes.count <= arena.count else { return false }
        let copy: UnsafeRawPointer
        if let lastSource, let lastCopy, lastSource == bytes.baseAddress, lastCount == bytes.count {
            copy = lastCopy
        } else {
            if arenaUsed + bytes.count > arena.count { submit() }
            let destination = arena.baseAddress! + arenaUsed
            destination.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            arenaUsed += (bytes.count + 15) & ~15
            copy = UnsafeRawPointer(destination)
            lastSource = bytes.baseAddress
            lastCount = bytes.count
            lastCopy = copy
        }
        if clinux_uring_prepare_send(ring, connection.fd, copy, bytes.count, UInt64(queued.count)) != 0 {
            // The submission queue is full: send what is queued, then queue this one anew
            // (the arena is reset, so copy again).
            submit()
            return enqueue(connection, bytes: bytes)
        }
        queued.append(connection)
        return true
    }

    /// Submits everything queued, waits for the completions and hands each result to its
    /// connection.
    func submit() {
        guard !queued.isEmpty else { return }
        // Completions never queue sends (they only write to their own connection's queue),
        // so the two arrays can trade places for the batch.
        swap(&queued, &inFlight)
        defer {
            inFlight.removeAll(keepingCapacity: true)
            completed.removeAll(keepingCapacity: true)
        }
        arenaUsed = 0
        lastSource = nil
        lastCopy = nil
        let submitted = clinux_uring_submit_and_wait(ring)
        completed.append(contentsOf: repeatElement(false, count: inFlight.count))
        var tag: UInt64 = 0
        var result: Int32 = 0
        while clinux_uring_next_completion(ring, &tag, &result) == 1 {
            let index = Int(tag)
            guard index < inFlight.count, !completed[index] else { continue }
            completed[index] = true
            inFlight[index].sendCompleted(result: result)
        }
        if submitted < 0 {
            // The ring failed as a whole (not seen in practice). It is not used again (its
            // unsubmitted entries die with it), and the sends it did not run, still queued
            // on their connections, are written the ordinary way.
            broken = true
            for (index, connection) in inFlight.enumerated() where !completed[index] {
                connection.sendCompleted(result: -EINTR)
            }
        }
    }
}
