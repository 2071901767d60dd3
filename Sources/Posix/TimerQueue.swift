/// A min-heap of deadlines for one loop. Cancelled timers are dropped lazily when they
/// reach the top, so cancel is O(1) and firing is O(log n).
struct TimerQueue {
    private struct Entry {
        var deadline: UInt64
        var id: UInt64
    }

    private var heap: [Entry] = []
    private var actions: [UInt64: () -> Void] = [:]
    private var nextID: UInt64 = 1

    var count: Int { actions.count }

    mutating func schedule(at deadline: UInt64, _ action: @escaping () -> Void) -> UInt64 {
        let id = nextID
        nextID += 1
        actions[id] = action
        heap.append(Entry(deadline: deadline, id: id))
        siftUp(heap.count - 1)
        return id
    }

    mutating func cancel(_ id: UInt64) {
        actions[id] = nil
    }

    /// The earliest live deadline, if any.
    mutating func nextDeadline() -> UInt64? {
        while let top = heap.first {
            if actions[top.id] != nil { return top.deadline }
            popTop()
        }
        return nil
    }

    /// Removes and returns the actions due at `now`, earliest first. Timers scheduled while
    /// these run wait for the next pass, so a zero-delay timer cannot starve the loop.
    mutating func popDue(now: UInt64) -> [() -> Void] {
        var due: [() -> Void] = []
        while let top = heap.first, top.deadline <= now {
            popTop()
            if let action = actions.removeValue(forKey: top.id) { due.append(action) }
        }
        return due
    }

    private mutating func popTop() {
        let last = heap.removeLast()
        if heap.isEmpty { return }
        heap[0] = last
        siftDown(0)
    }

    private func less(_ a: Entry, _ b: Entry) -> Bool {
        a.deadline != b.deadline ? a.deadline < b.deadline : a.id < b.id
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            if !less(heap[child], heap[parent]) { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && less(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count && less(heap[right], heap[smallest]) { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
