import JSON

/// The Merkle tree over a list's entries (docs/FAIRNESS.md §3, "The entry tree"): RFC 6962 /
/// RFC 9162 §2.1 hashing with domain-separated leaves and nodes, so one entrant can prove its
/// entry with about log2(n) hashes instead of the whole list.
///
///     leaf(i)  = SHA256(0x00 || canon({"group":g_i,"name":s_i,"position":i,"tickets":w_i}))
///     node     = SHA256(0x01 || left || right)
///     MTH([])  = SHA256("")   MTH([d]) = leaf   MTH(D[0:n]) = node(MTH(D[0:k]), MTH(D[k:n])), k the largest power of 2 < n
///
/// Level by level this is: pair the hashes left to right; an odd last one moves up unchanged.
public enum EntryTree {
    /// The leaf's bytes before hashing: `canon` of the entry's four fields.
    public static func leafData(position: Int, name: String, tickets: UInt64, group: String) -> [UInt8] {
        var out = [UInt8]()
        appendLeafData(position: position, name: name, tickets: tickets, group: group, to: &out)
        return out
    }

    /// `canon({"group":g,"name":s,"position":i,"tickets":w})` written directly: the keys in
    /// canonical (sorted) order, the strings and integers as `JSONValue.canonicalBytes` writes
    /// them (`EntryTreeTests` holds the two equal), without building a JSON object per entry.
    static func appendLeafData(position: Int, name: String, tickets: UInt64, group: String, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"group":"#.utf8)
        JSONWriter.appendString(group, to: &out)
        out.append(contentsOf: #","name":"#.utf8)
        JSONWriter.appendString(name, to: &out)
        out.append(contentsOf: #","position":"#.utf8)
        JSONWriter.appendInteger(Int64(position), to: &out)
        out.append(contentsOf: #","tickets":"#.utf8)
        JSONWriter.appendInteger(Int64(tickets), to: &out)
        out.append(UInt8(ascii: "}"))
    }

    public static func leafHash(position: Int, name: String, tickets: UInt64, group: String) -> [UInt8] {
        var buffer: [UInt8] = [0]
        appendLeafData(position: position, name: name, tickets: tickets, group: group, to: &buffer)
        return Hashing.sha256(buffer)
    }

    static func nodeHash(_ left: [UInt8], _ right: [UInt8]) -> [UInt8] {
        var buffer = [UInt8]()
        buffer.reserveCapacity(1 + left.count + right.count)
        buffer.append(1)
        buffer.append(contentsOf: left)
        buffer.append(contentsOf: right)
        return Hashing.sha256(buffer)
    }

    /// The leaf hashes of a list (tickets 1 and group "" when the list has none). One buffer
    /// for every leaf: 100,000 names take a small fraction of what a JSON object each took.
    public static func leaves(names: [String], tickets: [UInt64]?, groups: [String]?) -> [[UInt8]] {
        var buffer = [UInt8]()
        buffer.reserveCapacity(512)
        return names.indices.map { i in
            buffer.removeAll(keepingCapacity: true)
            buffer.append(0)
            appendLeafData(position: i, name: names[i], tickets: tickets?[i] ?? 1, group: groups?[i] ?? "", to: &buffer)
            return Hashing.sha256(buffer)
        }
    }

    /// The root (hex) over `leaves`.
    public static func root(_ leaves: [[UInt8]]) -> String {
        guard !leaves.isEmpty else { return Hashing.sha256Hex([]) }
        return Hex.encode(levels(leaves).last!)
    }

    public static func root(names: [String], tickets: [UInt64]?, groups: [String]?) -> String {
        root(leaves(names: names, tickets: tickets, groups: groups))
    }

    /// Every level of the tree, the leaves first and the root last, each as its 32-byte hashes
    /// back to back: pair the hashes left to right; an odd last one moves up unchanged. Kept, it
    /// gives any leaf's path without hashing again (`path(levels:index:)`).
    public static func levels(_ leaves: [[UInt8]]) -> [[UInt8]] {
        var level = [UInt8]()
        level.reserveCapacity(leaves.count * 32)
        for leaf in leaves { level.append(contentsOf: leaf) }
        var all = [level]
        var buffer = [UInt8]()
        buffer.reserveCapacity(65)
        while level.count > 32 {
            let count = level.count / 32
            var next = [UInt8]()
            next.reserveCapacity((count + 1) / 2 * 32)
            var i = 0
            while i + 1 < count {
                buffer.removeAll(keepingCapacity: true)
                buffer.append(1)
                buffer.append(contentsOf: level[i * 32 ..< (i + 2) * 32])
                next.append(contentsOf: Hashing.sha256(buffer))
                i += 2
            }
            if i < count { next.append(contentsOf: level[i * 32 ..< (i + 1) * 32]) }
            all.append(next)
            level = next
        }
        return all
    }

    /// The audit path of leaf `index` (RFC 9162 §2.1.3.1): the sibling hashes from the leaf up.
    public static func path(_ leaves: [[UInt8]], index: Int) -> [[UInt8]] {
        precondition(leaves.indices.contains(index))
        return path(levels: levels(leaves), index: index)
    }

    /// The same from the tree's `levels`.
    public static func path(levels: [[UInt8]], index: Int) -> [[UInt8]] {
        var out = [[UInt8]]()
        var i = index
        for level in levels.dropLast() {
            let sibling = i ^ 1
            if sibling < level.count / 32 { out.append(Array(level[sibling * 32 ..< (sibling + 1) * 32])) }  // else: an odd last node moves up
            i /= 2
        }
        return out
    }

    /// RFC 9162 §2.1.3.2: true when `path` leads from `leaf` at `index` of a tree of `size` leaves to `root`.
    public static func verify(leaf: [UInt8], index: Int, size: Int, path: [[UInt8]], root: [UInt8]) -> Bool {
        guard index >= 0, index < size else { return false }
        var fn = index, sn = size - 1
        var r = leaf
        for p in path {
            guard sn != 0, p.count == 32 else { return false }
            if fn & 1 == 1 || fn == sn {
                r = nodeHash(p, r)
                if fn & 1 == 0 {
                    while fn & 1 == 0 && fn != 0 { fn >>= 1; sn >>= 1 }
                }
            } else {
                r = nodeHash(r, p)
            }
            fn >>= 1; sn >>= 1
        }
        return sn == 0 && r == root
    }
}
