import Foundation

/// The key that seals pending seeds (issue #40, `pending_seeds`): 32 random bytes in `seed.key`
/// beside the database (mode 0600), made at the first start. Kept apart from the database so a
/// copy of the database alone (a backup, `tombola backup`) never opens a pending seed.
enum SeedKeyFile {
    static let fileName = "seed.key"

    /// The key in the directory of `databasePath`, made if there is none.
    static func load(besides databasePath: String) throws(StorageError) -> [UInt8] {
        let directory = (databasePath as NSString).deletingLastPathComponent
        let path = ((directory.isEmpty ? "." : directory) as NSString).appendingPathComponent(fileName)
        if let data = FileManager.default.contents(atPath: path) {
            guard data.count == 32 else { throw StorageError(.corrupt, detail: "\(fileName) is not 32 bytes") }
            return Array(data)
        }
        var generator = SystemRandomNumberGenerator()
        let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        // Created exclusively with 0600; written and synced before the database may seal with it.
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            // Another process made it meanwhile: read theirs.
            if errno == EEXIST, let data = FileManager.default.contents(atPath: path), data.count == 32 { return Array(data) }
            throw StorageError(.cannotOpen, detail: "cannot create \(fileName)")
        }
        defer { close(fd) }
        let written = key.withUnsafeBytes { write(fd, $0.baseAddress, 32) }
        guard written == 32, fsync(fd) == 0 else { throw StorageError(.diskFull, detail: "cannot write \(fileName)") }
        return key
    }
}
