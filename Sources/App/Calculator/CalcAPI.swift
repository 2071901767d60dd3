import Server
import JSON
import CalculatorEngine
import HTTPCore

/// `POST /api/calc`: `{"keys":["1","+","2","="],"mode":"basic","angle":"rad"}` → the final
/// `display` object (without `seq`) on a fresh calculator. Errors are
/// `{"error":{"code","message"}}`: 400 `bad_json`, 400 `bad_request`, 400 `unknown_key`
/// (with the key's `index`), 413 `too_large` past `maxKeys` keys.
enum CalcAPI {
    static let maxKeys = 10_000

    struct Request: Equatable {
        var keys: [CalculatorKey]
        var mode: CalculatorMode
        var angle: AngleUnit
    }

    struct Failure: Error, Equatable {
        var error: CalcProtocolError
        var index: Int?

        var status: HTTPStatus {
            if case .tooLarge = error { return .contentTooLarge }
            return .badRequest
        }
    }

    static func respond(to request: HTTPRequest, responder: Responder, service: CalcService) {
        let parsed: Request
        do {
            parsed = try decode(request.body)
        } catch {
            responder.respond(json(error.status, CalcFrames.apiError(error.error, index: error.index)))
            return
        }
        // Up to 10,000 keys can take seconds (the expression line grows with every operator).
        service.apiQueue.async {
            let display = evaluate(parsed)
            service.countKeys(parsed.keys.count, via: .api)
            responder.respond(json(.ok, Array(CalcFrames.display(display, seq: nil).utf8)))
        }
    }

    static func decode(_ body: [UInt8]) throws(Failure) -> Request {
        let json: JSONValue
        do {
            json = try CalcJSON.parse(body)
        } catch {
            throw Failure(error: .badJSON)
        }
        guard case .object = json else { throw Failure(error: .badRequest("The body is a JSON object")) }
        guard case .array(let elements)? = json["keys"] else {
            throw Failure(error: .badRequest("\"keys\" must be an array of key strings"))
        }
        guard elements.count <= maxKeys else {
            throw Failure(error: .tooLarge("At most \(maxKeys) keys per request"))
        }
        var keys: [CalculatorKey] = []
        keys.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard let wire = element.stringValue else {
                throw Failure(error: .badRequest("keys[\(index)] must be a string"), index: index)
            }
            guard let key = CalculatorKeyWire.key(for: wire) else { throw Failure(error: .unknownKey(wire), index: index) }
            keys.append(key)
        }
        var mode = CalculatorMode.basic
        if let field = json["mode"] {
            guard let wire = field.stringValue, let parsed = CalculatorKeyWire.mode(for: wire) else {
                throw Failure(error: .badRequest("\"mode\" must be \"basic\" or \"scientific\""))
            }
            mode = parsed
        }
        var angle = AngleUnit.radians
        if let field = json["angle"] {
            guard let wire = field.stringValue, let parsed = CalculatorKeyWire.angle(for: wire) else {
                throw Failure(error: .badRequest("\"angle\" must be \"deg\" or \"rad\""))
            }
            angle = parsed
        }
        return Request(keys: keys, mode: mode, angle: angle)
    }

    static func evaluate(_ request: Request) -> CalculatorDisplay {
        var calculator = Calculator()
        var display = calculator.setMode(request.mode)
        display = calculator.setAngle(request.angle)
        for key in request.keys { display = calculator.press(key) }
        return display
    }

    private static func json(_ status: HTTPStatus, _ body: [UInt8]) -> HTTPResponse {
        var response = HTTPResponse.json(status, body)
        response.headers.add(name: "Cache-Control", value: "no-store")
        return response
    }
}
