import Server
import JSON
import CalculatorEngine
import HTTPCore

/// `POST /api/calc`: `{"keys":["1","+","2","="],"mode":"basic","angle":"rad"}` → the final
/// `display` object (without `seq`) on a fresh calculator. Errors are
/// `{"error":{"code","message"}}`: 400 `bad_json`, 400 `bad_request`, 400 `unknown_key`
/// (with the key's `index`), 413 `too_large` past `maxKeys` keys. With
/// `"digits":{"position":1,"count":100}` the answer also carries the result's digits
/// (`"digits":{…}`, or `"digitsError":{"code","message"}` when there are none to give).
enum CalcAPI {
    static let maxKeys = 10_000

    struct Request: Equatable {
        var keys: [CalculatorKey]
        var mode: CalculatorMode
        var angle: AngleUnit
        var digits: (position: Int, count: Int)?

        static func == (a: Request, b: Request) -> Bool {
            a.keys == b.keys && a.mode == b.mode && a.angle == b.angle
                && a.digits?.position == b.digits?.position && a.digits?.count == b.digits?.count
        }
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
            var calculator = Calculator()
            let display = evaluate(parsed, on: &calculator)
            service.countKeys(parsed.keys.count, via: .api)
            var body = CalcFrames.display(display, seq: nil)
            if let window = parsed.digits {
                body = withDigits(body, CalcDigits.compute(calculator.value, position: window.position, count: window.count))
            }
            responder.respond(json(.ok, Array(body.utf8)))
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
        var digits: (position: Int, count: Int)?
        if let field = json["digits"] {
            guard case .object = field else {
                throw Failure(error: .badRequest("\"digits\" must be an object {\"position\":1,\"count\":100}"))
            }
            do {
                digits = try CalcClientMessage.digitsWindow(field)
            } catch {
                throw Failure(error: error.error)
            }
        }
        return Request(keys: keys, mode: mode, angle: angle, digits: digits)
    }

    /// The display object with `"digits":{…}` or `"digitsError":{…}` added at its end.
    private static func withDigits(_ display: String, _ result: Result<CalculatorDigits, CalcProtocolError>) -> String {
        var json = JSONWriter(reservingCapacity: 256)
        json.beginObject()
        switch result {
        case .success(let digits):
            json.key("digits")
            json.beginObject()
            CalcDigits.write(digits, into: &json)
            json.endObject()
        case .failure(let error):
            json.key("digitsError")
            json.beginObject()
            json.key("code"); json.string(error.code)
            json.key("message"); json.string(error.message)
            json.endObject()
        }
        json.endObject()
        // Both are objects: join them as one ({…display…,…digits…}).
        return String(display.dropLast()) + "," + String(json.text.dropFirst())
    }

    static func evaluate(_ request: Request) -> CalculatorDisplay {
        var calculator = Calculator()
        return evaluate(request, on: &calculator)
    }

    static func evaluate(_ request: Request, on calculator: inout Calculator) -> CalculatorDisplay {
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
