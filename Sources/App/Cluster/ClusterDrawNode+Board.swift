import DrawRoomCore

/// The board's pages in cluster mode: the owner's room has the board; a follower answers nil
/// (`503 cluster_unavailable`), as for the full settings.
extension ClusterDrawNode {
    func boardPage(_ request: BoardPageRequest, _ completion: @escaping @Sendable (BoardPageAnswer?) -> Void) {
        loop.execute { [self] in
            guard let room else { return completion(nil) }
            room.boardPage(request, completion)
        }
    }
}
