import CLinux
import Glibc

/// A failed system call: which call and its `errno`. The text is for logs, never for clients.
public struct POSIXError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: Int32
    public let call: String

    public init(code: Int32, call: String) {
        self.code = code
        self.call = call
    }

    public var description: String { "\(call): \(String(cString: strerror(code))) (errno \(code))" }
}

/// The outcome of a non-blocking call: it did something, or the kernel asked us to wait.
public enum IOResult<Value: Sendable>: Sendable {
    case done(Value)
    case wouldBlock
}

/// Runs one system call the way every call in Posix is run: retries `EINTR`, reports
/// `EAGAIN`/`EWOULDBLOCK` as `.wouldBlock`, traps on `EBADF` (a closed descriptor reaching a
/// call is our bug, not the peer's), and throws anything else as `POSIXError`.
@inline(__always)
func syscall(_ call: StaticString, _ body: () -> Int) throws(POSIXError) -> IOResult<Int> {
    while true {
        let result = body()
        if result >= 0 { return .done(result) }
        let code = clinux_errno()
        switch code {
        case EINTR:
            continue
        case EAGAIN, EWOULDBLOCK:
            return .wouldBlock
        case EBADF:
            fatalError("\(call): EBADF; a descriptor was used after close (a bug in Tombola)")
        default:
            throw POSIXError(code: code, call: "\(call)")
        }
    }
}

/// `syscall` for calls that must not block (setup calls): `.wouldBlock` becomes an error.
@inline(__always)
func syscallOrThrow(_ call: StaticString, _ body: () -> Int) throws(POSIXError) -> Int {
    switch try syscall(call, body) {
    case .done(let value): return value
    case .wouldBlock: throw POSIXError(code: EAGAIN, call: "\(call)")
    }
}

/// Closes a descriptor once. Linux frees the descriptor even when `close` reports `EINTR`,
/// so it is never retried.
func closeDescriptor(_ fd: Int32) {
    if Glibc.close(fd) != 0 && clinux_errno() == EBADF {
        fatalError("close(\(fd)): EBADF; closed twice (a bug in Tombola)")
    }
}
