import Server
import Posix
import DrawEngine

/// The start-up text: the addresses a person types or scans, with the LAN address first
/// (phones in the room cannot reach `localhost`). Host and admin keys ride in the fragment.
public enum Banner {
    /// `signer`: the server's record-signing key (issue #47), whose fingerprint the banner shows.
    public static func text(configuration: AppConfiguration, port: Int, signer: RecordSigner? = nil,
                            lanAddresses: [String] = NetworkInterfaces.lanIPv4Addresses()) -> String {
        let listensEverywhere = configuration.host == "0.0.0.0" || configuration.host == "::"
        var hosts: [String] = listensEverywhere ? lanAddresses : [configuration.host]
        if hosts.isEmpty { hosts = ["localhost"] }
        let base = "http://\(hosts[0].contains(":") ? "[\(hosts[0])]" : hosts[0]):\(port)"
        var lines = ["Tombola is running.", "", "  Home:        \(base)/", "  Calculator:  \(base)/calc"]
        if let code = configuration.defaultDrawCode {
            lines.append("  Screen:      \(base)/screen/\(code)")
            lines.append("  Viewers:     \(base)/watch/\(code)")
            if let key = configuration.hostKey {
                lines.append("  Host (keep this secret): \(base)/draw/\(code)#key=\(key)")
                // The projector that Space, Enter and a presenter clicker drive, and that shows
                // a check-in's presence code (issue #26).
                lines.append("  Screen with controls (keep this secret): \(base)/screen/\(code)#key=\(key)")
            } else {
                lines.append("  Host:        \(base)/draw/\(code)")
            }
        }
        if let admin = configuration.adminKey {
            lines.append("  Admin (keep this secret): \(AdminKey.link(base: base, key: admin))")
        }
        if let signer {
            // Public: what a reader of an export compares the signatures' key with (issue #47).
            lines.append("  Signing key: \(RecordSigning.grouped(signer.fingerprint)) (Ed25519, \(base)/api/server/key)")
        }
        for other in hosts.dropFirst() { lines.append("  Also at:     http://\(other):\(port)/") }
        if listensEverywhere { lines.append("  On this machine: http://localhost:\(port)/") }
        lines.append("")
        lines.append("Press Ctrl-C to stop.")
        return lines.joined(separator: "\n") + "\n"
    }
}
