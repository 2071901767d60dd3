import Server
import CalculatorEngine
import JSON

/// Digits of a calculator result for `/ws/calc` and `/api/calc` (docs/PROTOCOL.md, "Digits").
enum CalcDigits {
    /// The engine's answer as a protocol error or digits.
    static func compute(_ value: CalculatorValue?, position: Int, count: Int) -> Result<CalculatorDigits, CalcProtocolError> {
        guard let value else { return .failure(.noResult) }
        do throws(CalculatorDigitsError) {
            return .success(try value.digits(position: position, count: count))
        } catch {
            switch error {
            case .outOfRange: return .failure(.outOfRange("Digits go up to position \(CalculatorValue.maximumPosition) after the point"))
            case .noResult: return .failure(.noResult)
            case .unavailable:
                return .failure(.digitsUnavailable("This result was built from too many inexact steps to recompute its digits"))
            case .tooCostly:
                return .failure(.digitsUnavailable("These digits of this result would take too long to recompute"))
            }
        }
    }

    /// The fields of a digits answer, written into an open object:
    /// `"position","count","status","negative","integer","digits","exact","identified","terminatesAt","repeat"`.
    static func write(_ d: CalculatorDigits, into json: inout JSONWriter) {
        json.key("position"); json.integer(d.position)
        json.key("count"); json.integer(d.digits.isEmpty ? 0 : d.digits.utf8.count)
        json.key("status"); json.string(d.status.rawValue)
        json.key("negative"); json.bool(d.negative)
        json.key("integer"); json.string(d.integer)
        json.key("digits"); json.string(d.digits)
        json.key("exact"); json.bool(d.exact)
        json.key("identified"); json.bool(d.identified)
        json.key("terminatesAt")
        if let end = d.terminatesAt { json.integer(end) } else { json.null() }
        json.key("repeat")
        if let start = d.repeatStart, let length = d.repeatLength {
            json.beginObject()
            json.key("start"); json.integer(start)
            json.key("length"); json.integer(length)
            json.endObject()
        } else {
            json.null()
        }
    }

    /// `{"type":"digits","seq":…,…}`: `seq` is the last key applied when the value was taken,
    /// so a page can tell which result the digits belong to.
    static func frame(_ d: CalculatorDigits, seq: Int) -> String {
        var json = JSONWriter(reservingCapacity: 200 + d.digits.utf8.count + d.integer.utf8.count)
        json.beginObject()
        json.key("type"); json.string("digits")
        json.key("seq"); json.integer(seq)
        write(d, into: &json)
        json.endObject()
        return json.text
    }
}

/// A socket's allowance of digits: `capacity` digit positions (position + count − 1 of each
/// request, what its cost grows with), refilled at `refillPerSecond`. Time is passed in.
struct DigitsBudget {
    static let capacity = 100_000.0
    static let refillPerSecond = 10_000.0

    private var available = capacity
    private var updated: ContinuousClock.Instant?

    /// Takes `cost` if it is available at `now`; otherwise how many seconds until it is.
    mutating func spend(_ cost: Int, at now: ContinuousClock.Instant) -> Double? {
        if let updated {
            let elapsed = updated.duration(to: now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            available = Swift.min(Self.capacity, available + seconds * Self.refillPerSecond)
        }
        updated = now
        let need = Double(cost)
        guard available >= need else { return (need - available) / Self.refillPerSecond }
        available -= need
        return nil
    }
}
