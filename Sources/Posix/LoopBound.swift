/// Carries a loop-confined value across threads so it can be used again on its loop:
/// `let bound = LoopBound(connection, loop: loop)` … `loop.execute { bound.value.write(…) }`.
///
/// `@unchecked Sendable`: `value` is only ever read on `loop`'s thread (a precondition).
public struct LoopBound<Value>: @unchecked Sendable {
    private let wrapped: Value
    public let loop: EventLoop

    public init(_ value: Value, loop: EventLoop) {
        self.wrapped = value
        self.loop = loop
    }

    public var value: Value {
        precondition(loop.inEventLoop, "LoopBound value used off its loop")
        return wrapped
    }

    /// Runs `body` with the value on its loop.
    public func execute(_ body: @escaping @Sendable (Value) -> Void) {
        let this = self
        loop.execute { body(this.value) }
    }
}
