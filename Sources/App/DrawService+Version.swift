import Embedded

extension DrawService {
    /// The release this server runs (`GET /api/info` and the start-up log), from `VERSION`.
    public static var version: String { BuildInfo.version }
}
