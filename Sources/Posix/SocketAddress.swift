import CLinux
import Glibc

/// An IPv4 or IPv6 socket address.
public struct SocketAddress: Sendable, CustomStringConvertible {
    var storage: sockaddr_storage
    var length: socklen_t

    init(storage: sockaddr_storage, length: socklen_t) {
        self.storage = storage
        self.length = length
    }

    /// Parses a numeric host (`127.0.0.1`, `::1`, `0.0.0.0`) or `localhost`.
    public init(host: String, port: Int) throws(POSIXError) {
        var storage = sockaddr_storage()
        let host = host == "localhost" ? "127.0.0.1" : host
        let ok: Bool = withUnsafeMutableBytes(of: &storage) { raw in
            if host.contains(":") {
                let sin6 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                sin6.pointee.sin6_family = sa_family_t(AF_INET6)
                sin6.pointee.sin6_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
                return inet_pton(AF_INET6, host.trimmingBrackets, &sin6.pointee.sin6_addr) == 1
            } else {
                let sin = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
                sin.pointee.sin_family = sa_family_t(AF_INET)
                sin.pointee.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
                return inet_pton(AF_INET, host, &sin.pointee.sin_addr) == 1
            }
        }
        guard ok, (0...65535).contains(port) else { throw POSIXError(code: EINVAL, call: "inet_pton(\(host))") }
        self.storage = storage
        self.length = socklen_t(host.contains(":") ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
    }

    public var family: Int32 { Int32(storage.ss_family) }

    public var port: Int {
        withUnsafeBytes(of: storage) { raw in
            if family == AF_INET6 {
                return Int(UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port))
            }
            return Int(UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port))
        }
    }

    /// The numeric host, without port.
    public var host: String {
        // Formatted on the stack: every accepted connection asks for it.
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN)) { buffer in
            buffer.initialize(repeating: 0)
            withUnsafeBytes(of: storage) { raw in
                if family == AF_INET6 {
                    var addr = raw.load(as: sockaddr_in6.self).sin6_addr
                    _ = inet_ntop(AF_INET6, &addr, buffer.baseAddress, socklen_t(buffer.count))
                } else {
                    var addr = raw.load(as: sockaddr_in.self).sin_addr
                    _ = inet_ntop(AF_INET, &addr, buffer.baseAddress, socklen_t(buffer.count))
                }
            }
            return String(cString: buffer.baseAddress!)
        }
    }

    public var description: String { family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafeBytes(of: storage) { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length)
        }
    }
}

extension String {
    fileprivate var trimmingBrackets: String {
        hasPrefix("[") && hasSuffix("]") ? String(dropFirst().dropLast()) : self
    }
}
