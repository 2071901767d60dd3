import CLinux
import Glibc
import HTTPCore
import Locking
import Posix
import Synchronization

/// `Public/` in memory: a directory, loaded at start-up and reloaded (on SIGHUP, or when the
/// watcher sees a change) on a background thread, or the pages built into the binary. Loops
/// only ever read the current immutable snapshot, so no disk access happens on a loop thread.
public final class StaticFiles: Sendable {
    struct Snapshot: Sendable {
        var files: [String: StaticFile] = [:]
        var directories: Set<String> = [""]
        /// Path, size and modification time of every file, to notice changes cheaply.
        var signature: [String: FileStamp] = [:]
    }

    struct FileStamp: Sendable, Equatable {
        var size: Int
        var modifiedNanoseconds: Int
    }

    /// The directory served, or nil for the built-in pages (`bundle`).
    public let root: String?
    private let bundle: PageBundle?
    private let snapshot = Lock(Snapshot())
    private let watcherRunning = Atomic<Bool>(false)
    private let watcherStop = Atomic<Bool>(false)
    /// Largest file served; bigger ones are skipped (Public/ holds pages, not media).
    static let maxFileBytes = 32 << 20

    public init(root: String) {
        self.root = root
        bundle = nil
    }

    public init(bundle: PageBundle) {
        root = nil
        self.bundle = bundle
    }

    /// Number of files served.
    public var fileCount: Int { snapshot.withLock { $0.files.count } }

    /// Reads the whole tree (or the built-in pages) and swaps it in. Throws when the root is not
    /// a directory.
    public func reload() throws(ServerError) {
        let loaded: Snapshot
        if let root {
            loaded = try Self.load(root: root)
        } else {
            loaded = Self.snapshot(of: bundle ?? PageBundle(files: [], modifiedSeconds: 0))
        }
        snapshot.withLock { $0 = loaded }
    }

    /// Re-stats the tree every `interval` on a background thread and reloads on change (a
    /// directory only: the built-in pages never change).
    public func startWatching(every interval: Duration) {
        guard let root, !watcherRunning.exchange(true, ordering: .acquiringAndReleasing) else { return }
        watcherStop.store(false, ordering: .releasing)
        // Its pauses block only its own thread (`DetachedThread`, the one way work leaves a loop).
        if !DetachedThread.start({ [self] in watch(root: root, every: interval) }) {
            watcherRunning.store(false, ordering: .releasing)
        }
    }

    public func stopWatching() {
        watcherStop.store(true, ordering: .releasing)
    }

    private func watch(root: String, every interval: Duration) {
        defer { watcherRunning.store(false, ordering: .releasing) }
        let steps = max(1, Int(interval.components.seconds * 10 + interval.components.attoseconds / 100_000_000_000_000_000))
        while true {
            for _ in 0..<steps {
                if watcherStop.load(ordering: .acquiring) { return }
                usleep(100_000)
            }
            let current = snapshot.withLock { $0.signature }
            var stamps: [String: FileStamp] = [:]
            var directories: Set<String> = [""]
            guard let realRoot = Self.realPath(root) else { continue }
            var unread: [String: ([UInt8], Int)] = [:]
            Self.walk(realRoot: realRoot, relative: "", depth: 0, stamps: &stamps, directories: &directories,
                      readContents: false, contents: &unread)
            if stamps != current { try? reload() }
        }
    }

    // MARK: Look-up (any thread, no disk)

    /// The file for decoded path segments: `[]` → `index.html`, a directory → its
    /// `index.html`; nil when absent (no directory listings).
    func file(for segments: [String]) -> StaticFile? {
        let key = segments.joined(separator: "/")
        return snapshot.withLock { snapshot in
            if let file = snapshot.files[key] { return file }
            if snapshot.directories.contains(key) {
                return snapshot.files[key.isEmpty ? "index.html" : key + "/index.html"]
            }
            return nil
        }
    }

    // MARK: Loading (background threads only)

    private static func load(root: String) throws(ServerError) -> Snapshot {
        guard let realRoot = realPath(root), isDirectory(realRoot) else {
            throw ServerError.publicDirectoryNotFound(root)
        }
        var stamps: [String: FileStamp] = [:]
        var directories: Set<String> = [""]
        var contents: [String: ([UInt8], Int)] = [:]
        walk(realRoot: realRoot, relative: "", depth: 0, stamps: &stamps, directories: &directories,
             readContents: true, contents: &contents)
        var snapshot = Snapshot()
        snapshot.directories = directories
        snapshot.signature = stamps
        for (path, (bytes, modified)) in contents {
            snapshot.files[path] = StaticFile(path: path, contents: bytes, modifiedSeconds: modified)
        }
        return snapshot
    }

    private static func snapshot(of bundle: PageBundle) -> Snapshot {
        var snapshot = Snapshot()
        for (path, bytes) in bundle.files {
            snapshot.files[path] = StaticFile(path: path, contents: bytes, modifiedSeconds: bundle.modifiedSeconds)
            var parts = path.split(separator: "/").dropLast()
            while !parts.isEmpty {
                snapshot.directories.insert(parts.joined(separator: "/"))
                parts = parts.dropLast()
            }
        }
        return snapshot
    }

    /// Walks `realRoot/relative`, skipping dot-files and anything whose real path leaves
    /// the root (symlinks out of `Public/`). Reads contents when `contents` is given.
    private static func walk(realRoot: String, relative: String, depth: Int,
                             stamps: inout [String: FileStamp], directories: inout Set<String>,
                             readContents: Bool, contents: inout [String: ([UInt8], Int)]) {
        guard depth < 16 else { return }
        let directory = relative.isEmpty ? realRoot : realRoot + "/" + relative
        guard let handle = opendir(directory) else { return }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(".") || name.contains("\\") { continue }
            names.append(name)
        }
        for name in names {
            let relativePath = relative.isEmpty ? name : relative + "/" + name
            guard let real = realPath(realRoot + "/" + relativePath),
                  real == realRoot || real.hasPrefix(realRoot + "/") else { continue }
            var info = stat()
            guard stat(real, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                guard !directories.contains(relativePath) else { continue }
                directories.insert(relativePath)
                walk(realRoot: realRoot, relative: relativePath, depth: depth + 1,
                     stamps: &stamps, directories: &directories, readContents: readContents, contents: &contents)
            } else if info.st_mode & S_IFMT == S_IFREG && Int(info.st_size) <= maxFileBytes {
                stamps[relativePath] = FileStamp(size: Int(info.st_size),
                                                 modifiedNanoseconds: info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec)
                if readContents, let bytes = readFile(real) {
                    contents[relativePath] = (bytes, info.st_mtim.tv_sec)
                }
            }
        }
    }

    private static func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && clinux_errno() == EINTR { continue }
            if count < 0 { return nil }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
            if bytes.count > maxFileBytes { return nil }
        }
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}

/// Why the server could not start. The text is for the operator's console.
public enum ServerError: Error, Sendable, CustomStringConvertible {
    case publicDirectoryNotFound(String)
    case cannotListen(host: String, port: Int, reason: String)

    public var description: String {
        switch self {
        case .publicDirectoryNotFound(let path):
            "the public directory \(path) does not exist or is not a directory (use --public DIR)"
        case .cannotListen(let host, let port, let reason):
            "cannot listen on \(host):\(port): \(reason)"
        }
    }
}
