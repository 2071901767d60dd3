import CLinux
import Glibc

/// The machine's network addresses, for the start-up banner.
public enum NetworkInterfaces {
    /// IPv4 addresses of interfaces that are up, excluding loopback, in system order.
    public static func lanIPv4Addresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var addresses: [String] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int32(entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0,
                  let address = entry.pointee.ifa_addr, Int32(address.pointee.sa_family) == AF_INET else { continue }
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { raw in
                raw.copyMemory(from: UnsafeRawBufferPointer(start: address, count: MemoryLayout<sockaddr_in>.size))
            }
            let host = SocketAddress(storage: storage, length: socklen_t(MemoryLayout<sockaddr_in>.size)).host
            if !addresses.contains(host) { addresses.append(host) }
        }
        return addresses
    }
}
