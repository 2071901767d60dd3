import DrawRoomCore
import DrawEngine
import JSON
import Posix
import Server

/// A draw the check-in routes can serve: `DrawRoom` (single-box, and a cluster owner's room)
/// and `ClusterDrawNode` (any instance of a cluster).
protocol CheckinChannel: DrawChannel {
    /// Per-instance attempt limits (in cluster mode each instance limits what reaches it).
    var checkinLimits: CheckinLimits { get }
    /// A phone's join: the request body (checked against the room's settings there), its device
    /// hash; the ack carries the `entry`, a refusal its `detail`.
    func checkinJoin(_ body: JSONValue, device: String, completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void)
    /// A phone claims its win with its device hash (#26, docs/PROTOCOL.md "Claims").
    func checkinClaim(device: String, completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void)
    /// The answer to `query` as JSON.
    func checkinRead(_ query: CheckinQuery, completion: @escaping @Sendable (Result<JSONValue, CommandFailure>) -> Void)
}

extension DrawRoom: CheckinChannel {
    func checkinJoin(_ body: JSONValue, device: String, completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void) {
        // The form is checked against the room's settings, on its loop (they may change meanwhile).
        whenReady({ [self] in
            switch CheckinForm.parse(body, settings: state.checkin.book.settings) {
            case .failure(let refusal):
                completion(.failure(CommandFailure(code: refusal.code, detail: refusal.field.map { .object(["field": .string($0)]) })))
            case .success(let form):
                checkin(CheckinJoin(form: form.form, device: device, code: form.code), completion: completion)
            }
        }, otherwise: { completion(.failure(CommandFailure(code: "storage_failed"))) })
    }

    func checkinClaim(device: String, completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void) {
        claim(device: device, completion: completion)
    }

    func checkinRead(_ query: CheckinQuery, completion: @escaping @Sendable (Result<JSONValue, CommandFailure>) -> Void) {
        whenReady({ [self] in completion(state.checkinAnswer(query, at: Int64(WallClock.unixMilliseconds())).map(\.json)) },
                  otherwise: { completion(.failure(CommandFailure(code: "storage_failed"))) })
    }
}

extension CheckinAnswer {
    /// As the routes send it: the JSON, or `{"csv":text}` (`CheckinCSV`, the server's time zone).
    var json: JSONValue {
        switch self {
        case .json(let value): value
        case .csv(let entries, let fields): .object(["csv": .string(CheckinCSV.text(entries, fields: fields))])
        }
    }
}
