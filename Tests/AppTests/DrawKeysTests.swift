import Storage
import Synchronization
import Testing
@testable import App
@testable import DrawRoomCore
@testable import Server

@Suite("Draw codes, keys and the auth rate limit")
struct DrawKeysTests {
    @Test func codesUseOnlyTheUnambiguousAlphabet() {
        let alphabet = Set("23456789ABCDEFGHJKMNPQRSTUVWXYZ")
        var seen = Set<String>()
        for _ in 0..<500 {
            let code = DrawKeys.newCode()
            #expect(code.count == 6)
            #expect(code.allSatisfy(alphabet.contains))
            seen.insert(code)
        }
        #expect(seen.count > 490)
    }

    @Test func secretsCarry128BitsInBase32() {
        let secrets = (0..<200).map { _ in DrawKeys.newSecret() }
        #expect(Set(secrets).count == 200)
        for secret in secrets {
            #expect(secret.count == 26)
            #expect(secret.allSatisfy { "abcdefghijklmnopqrstuvwxyz234567".contains($0) })
            #expect(DrawKeys.isPlausibleKey(secret))
        }
    }

    @Test func onlyTheHashIsKeptAndMatchesTheKeyAlone() {
        let hash = DrawKeys.hash("abc")
        // SHA-256("abc"), FIPS 180-2 appendix B.1.
        #expect(hash == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(DrawKeys.matches("abc", storedHash: hash))
        #expect(!DrawKeys.matches("abd", storedHash: hash))
        #expect(!DrawKeys.matches("", storedHash: hash))
        #expect(!DrawKeys.matches("abc", storedHash: String(hash.dropLast())))
        #expect(!DrawKeys.isPlausibleKey("has space"))
        #expect(!DrawKeys.isPlausibleKey(""))
    }

    @Test func theLimiterAllowsABurstThenOneTryPerInterval() {
        let clock = Atomic<UInt64>(1_000_000_000)
        let limiter = AuthRateLimiter(burst: 5, refill: .seconds(2), now: { clock.load(ordering: .relaxed) })
        for _ in 0..<5 {
            #expect(limiter.allows("10.0.0.1"))
            limiter.recordFailure("10.0.0.1")
        }
        #expect(!limiter.allows("10.0.0.1"))
        #expect(limiter.allows("10.0.0.2"))
        #expect(limiter.retryAfterSeconds("10.0.0.1") == 2)
        // 100 more failures while limited keep it limited, but never for longer than one interval.
        for _ in 0..<100 { limiter.recordFailure("10.0.0.1") }
        #expect(!limiter.allows("10.0.0.1"))
        clock.wrappingAdd(1_999_000_000, ordering: .relaxed)
        #expect(!limiter.allows("10.0.0.1"))
        clock.wrappingAdd(1_000_000, ordering: .relaxed)
        #expect(limiter.allows("10.0.0.1"))
        limiter.recordFailure("10.0.0.1")
        #expect(!limiter.allows("10.0.0.1"))
        clock.wrappingAdd(60_000_000_000, ordering: .relaxed)
        for _ in 0..<5 { #expect(limiter.allows("10.0.0.1")); limiter.recordFailure("10.0.0.1") }
        #expect(!limiter.allows("10.0.0.1"))
    }

    @Test func theSlowDownSpacesOutAndTakesTheWholeDuration() {
        let delays = DrawRoomState.slowDownDelays(tickHz: 20, total: .milliseconds(1500))
        let ms = delays.map { Double($0.components.attoseconds) / 1e15 + Double($0.components.seconds) * 1000 }
        #expect(abs(ms.reduce(0, +) - 1500) < 1)
        #expect(ms.first == 50)
        #expect(zip(ms.dropLast(), ms.dropLast().dropFirst()).allSatisfy { $0 < $1 })
        #expect(ms.count >= 8)
        let slow = DrawRoomState.slowDownDelays(tickHz: 1, total: .milliseconds(1500))
        #expect(slow.count == 2)
    }

    @Test func storageErrorsBecomeDiskFullOrStorageFailed() {
        #expect(DrawPersistence.errorCode(StorageError(.diskFull)) == "disk_full")
        #expect(DrawPersistence.errorCode(StorageError(.closed)) == "storage_failed")
        #expect(DrawPersistence.errorCode(StorageError(.chainConflict)) == "storage_failed")
    }
}

