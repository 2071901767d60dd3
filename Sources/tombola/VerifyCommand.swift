import DrawEngine

/// `tombola verify FILE` rechecks every round of an exported draw.
enum VerifyCommand {
    static func run(_ arguments: [String]) -> Int32 {
        print("tombola verify: not built yet")
        return 1
    }
}
