/// What this binary is: the version (the `VERSION` file), the commit it was built from, the
/// Swift compiler and the build date, stamped by Plugins/Embed at build time.
public enum BuildInfo {
    /// The release, e.g. `1.0.0` (the one place it is written is `VERSION`).
    public static let version = generated.version
    /// The git commit's first 12 hex digits (`-dirty` with uncommitted changes), or `unknown`
    /// when built outside a git checkout.
    public static let commit = generated.commit
    /// The compiler's version, e.g. `6.3.1`, or `unknown`.
    public static let swiftVersion = generated.swift
    /// When the build stamp was made (SOURCE_DATE_EPOCH when set), ISO 8601 UTC.
    public static let date = generated.date
    /// The same instant as Unix seconds (the embedded pages' Last-Modified).
    public static let unixSeconds = generated.unixSeconds

    /// `tombola --version`.
    public static var summary: String {
        "tombola \(version)\ncommit \(commit)\nbuilt \(date)\nswift \(swiftVersion)\n"
    }
}
