import Foundation
import Testing
@testable import Embedded

/// The pages built into the binary are Public/ byte for byte (the generator's literals keep
/// every byte), and the build stamp is filled in.
@Suite struct EmbeddedPagesTests {
    static let publicDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Public")

    static func filesOnDisk() throws -> [String: Data] {
        var result: [String: Data] = [:]
        let root = publicDirectory.path
        for relative in FileManager.default.enumerator(atPath: root)?.compactMap({ $0 as? String }) ?? [] {
            var isDirectory: ObjCBool = false
            let path = root + "/" + relative
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                  !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) else { continue }
            result[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        return result
    }

    @Test func holdsEveryFileOfPublicByteForByte() throws {
        let disk = try Self.filesOnDisk()
        let embedded = Dictionary(uniqueKeysWithValues: EmbeddedPages.files.map { ($0.path, Data($0.bytes)) })
        #expect(disk.count > 30 && disk["draw.html"] != nil && disk["js/lib/i18n.js"] != nil)
        #expect(Set(embedded.keys) == Set(disk.keys))
        for (path, bytes) in disk {
            #expect(embedded[path] == bytes, "\(path) differs from Public/")
        }
    }

    @Test func stampsTheVersionFileTheCompilerAndADate() throws {
        let versionFile = Self.publicDirectory.deletingLastPathComponent().appendingPathComponent("VERSION")
        let version = try String(contentsOf: versionFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(BuildInfo.version == version)
        #expect(BuildInfo.swiftVersion.first?.isNumber == true, "\(BuildInfo.swiftVersion)")
        #expect(BuildInfo.date.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil, "\(BuildInfo.date)")
        #expect(BuildInfo.commit == "unknown" || BuildInfo.commit.wholeMatch(of: /[0-9a-f]{12}(-dirty)?/) != nil)
        #expect(BuildInfo.summary.hasPrefix("tombola \(version)\ncommit \(BuildInfo.commit)\n"))
    }
}
