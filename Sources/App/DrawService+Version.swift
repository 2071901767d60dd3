import Embedded

extension DrawService {
    /// The release this server runs (`GET /api` and the start-up log), from `VERSION`.
    public static var version: String { BuildInfo.version }
}
