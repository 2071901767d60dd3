import Foundation

/// Keys an operator chooses (`--host-key`, `--admin-key`, or their `-file` forms): read from
/// the file when one is named (a key in a file stays out of `ps` and `/proc/PID/cmdline`), then
/// held to the rules a generated key meets easily. Messages name the option, never the key.
enum OperatorKey {
    /// Shorter keys are refused: 16 characters of a password manager or `base32` are ~80 bits.
    static let minimumLength = 16

    /// The key for `role` (`host` or `admin`): from `key`, or read from `file`; nil when neither is given.
    static func resolve(_ role: String, key: String?, file: String?) throws(ServerOptions.UsageError) -> String? {
        let option = "--\(role)-key"
        var text = key
        var source = option
        if let file {
            guard key == nil else {
                throw ServerOptions.UsageError(message: "give \(option) or \(option)-file, not both")
            }
            text = try read(file, option: option + "-file")
            source = "\(option)-file '\(file)'"
        }
        guard let text else { return nil }
        guard text.utf8.count <= 256, text.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) else {
            throw ServerOptions.UsageError(message: "\(source): the \(role) key must be printable ASCII without spaces, at most 256 characters")
        }
        guard text.utf8.count >= minimumLength else {
            throw ServerOptions.UsageError(message: "\(source): the \(role) key must be at least \(minimumLength) characters, "
                                           + "this one has \(text.utf8.count) (make one with: head -c 20 /dev/urandom | base32)")
        }
        return text
    }

    /// The file's text without one trailing newline (`\n` or `\r\n`), as `echo` or an editor leaves it.
    private static func read(_ path: String, option: String) throws(ServerOptions.UsageError) -> String {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ServerOptions.UsageError(message: "\(option): '\(path)' does not exist")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ServerOptions.UsageError(message: "\(option): cannot read '\(path)' (a directory, or no permission?)")
        }
        var bytes = Array(data)
        if bytes.last == 0x0a { bytes.removeLast() }
        if bytes.last == 0x0d { bytes.removeLast() }
        guard !bytes.isEmpty else { throw ServerOptions.UsageError(message: "\(option): '\(path)' is empty") }
        return String(decoding: bytes, as: UTF8.self)
    }
}
