import Foundation
import PackagePlugin

/// Builds Public/ and the build's identity into the `Embedded` module, so the one `tombola`
/// file is the whole server. The generator (tombola-embed) finds the files and the commit
/// itself; the inputs listed here only say when to run it again: every file and directory of
/// Public/ (an edit, a new or a deleted file shows after `swift build`), VERSION, and git's HEAD
/// and branch files (a commit or a checkout).
@main
struct Embed: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let package = context.package.directoryURL
        let pages = package.appending(path: "Public")
        let generator = try context.tool(named: "tombola-embed").url
        let pagesOutput = context.pluginWorkDirectoryURL.appending(path: "GeneratedPages.swift")
        let infoOutput = context.pluginWorkDirectoryURL.appending(path: "GeneratedBuildInfo.swift")
        let swiftc = (try? context.tool(named: "swiftc").url.path) ?? ""
        // The sanitizer builds run the generator instrumented; its leaks are not the server's.
        let environment = ["ASAN_OPTIONS": "detect_leaks=0"]
        return [
            .buildCommand(displayName: "Embedding Public/", executable: generator,
                          arguments: ["pages", pages.path, pagesOutput.path], environment: environment,
                          inputFiles: Self.tree(pages), outputFiles: [pagesOutput]),
            .buildCommand(displayName: "Stamping the version and commit", executable: generator,
                          arguments: ["build-info", package.path, swiftc, infoOutput.path], environment: environment,
                          inputFiles: [package.appending(path: "VERSION")] + Self.gitState(package), outputFiles: [infoOutput]),
        ]
    }

    /// `root`, and every directory and file under it (a directory's time changes when an entry
    /// is added or removed).
    static func tree(_ root: URL) -> [URL] {
        var result = [root]
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        while let url = walker?.nextObject() as? URL { result.append(url) }
        return result
    }

    /// The files a commit or a checkout changes (HEAD and its log, the branch's ref,
    /// packed-refs); none outside a git checkout.
    static func gitState(_ package: URL) -> [URL] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", package.path, "rev-parse", "--path-format=absolute",
                             "--git-path", "HEAD", "--git-path", "packed-refs", "--git-path", "logs/HEAD", "--symbolic-full-name", "HEAD"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return [] }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return [] }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        guard lines.count >= 3 else { return [] }
        var files = lines[0..<3].map { URL(fileURLWithPath: $0) }
        if lines.count == 4, lines[3].hasPrefix("refs/") {
            // The branch's own file lives in the common directory (a worktree shares it).
            let common = URL(fileURLWithPath: lines[1]).deletingLastPathComponent()
            files.append(common.appending(path: lines[3]))
        }
        return files.filter { FileManager.default.fileExists(atPath: $0.path) }
    }
}
