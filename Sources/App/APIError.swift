import DrawRoomCore
import Server
import DrawEngine
import HTTPCore
import JSON

/// API errors as HTTP: status + `{"error":{"code","message"}}` (codes are the protocol's).
enum APIError {
    static func status(for code: String) -> HTTPStatus {
        switch code {
        case "unauthorized": .unauthorized
        case "bad_key", "bad_admin_key", "not_host", "past_draw_key", "role_forbidden": .forbidden
        case "unknown_draw", "not_found", "unknown_operator": .notFound
        case "method_not_allowed": .methodNotAllowed
        case "wrong_phase", "not_committed", "pool_exhausted", "none_eligible", "prizes_done", "already_voided", "reverse_done": .conflict
        case "draw_archived", "not_archived", "default_draw", "draw_linked": .conflict
        case "not_supported": .notImplemented
        case "beacon_void", "beacon_waiting": .conflict
        case "not_checkin", "entries_open", "entries_closed", "already_joined", "duplicate_value", "entries_full": .conflict
        case "bad_code", "not_winner": .forbidden
        case "claim_closed", "claim_open": .conflict
        case "unknown_voucher": .notFound
        case "voucher_void", "already_handed_over": .conflict
        case "handover_unsupported": .notImplemented
        case "signoff_required", "signoff_stale", "already_signed", "bad_signoff_round": .conflict
        case "no_entry", "unknown_entrant": .notFound
        case "too_large", "logo_too_large", "media_too_large": .contentTooLarge
        case "bad_logo", "bad_media": .unsupportedMediaType
        case "no_logo", "no_media", "unknown_webhook": .notFound
        case "rate_limited": .tooManyRequests
        case "storage_failed", "disk_full", "busy", "cluster_unavailable": .serviceUnavailable
        default: .badRequest
        }
    }

    /// `message` replaces the code's usual words where one code has several causes.
    static func response(_ code: String, status: HTTPStatus? = nil, message: String? = nil) -> HTTPResponse {
        let text = message ?? DrawErrorText.message(for: code)
        let body: JSONValue = .object(["error": .object(["code": .string(code), "message": .string(text)])])
        var response = HTTPResponse.json(status ?? Self.status(for: code), body.canonicalBytes)
        response.headers.add(name: "Cache-Control", value: "no-store")
        return response
    }

    static func methodNotAllowed(allow: [String]) -> HTTPResponse {
        var response = Self.response("method_not_allowed")
        response.headers.add(name: "Allow", value: allow.joined(separator: ", "))
        return response
    }

    /// A room command's ack as the REST answer: its members without `type`, with `ok: true` and `extra`.
    static func ack(_ ack: JSONValue, adding extra: [String: JSONValue] = [:]) -> HTTPResponse {
        var members = ack.objectValue ?? [:]
        members["type"] = nil
        members["ok"] = .bool(true)
        members.merge(extra) { _, added in added }
        return json(.object(members))
    }

    static func json(_ value: JSONValue, status: HTTPStatus = .ok) -> HTTPResponse {
        json(text: value.canonicalString, status: status)
    }

    static func json(text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        var response = HTTPResponse.json(status, Array(text.utf8))
        response.headers.add(name: "Cache-Control", value: "no-store")
        return response
    }
}
