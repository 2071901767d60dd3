#ifndef TOMBOLA_CLINUX_URING_H
#define TOMBOLA_CLINUX_URING_H
// A minimal io_uring used for one thing: many small sends submitted with one system call.
// The kernel headers (linux/io_uring.h) describe the rings; there is no liburing here.
#include <stdint.h>
#include <stddef.h>

/// One ring, owned by one thread (the loop that created it).
typedef struct clinux_uring {
    int fd;
    unsigned entries;
    unsigned *sq_head, *sq_tail, *sq_mask, *sq_array;
    unsigned *cq_head, *cq_tail, *cq_mask;
    void *sqes;
    void *cqes;
    void *sq_map; size_t sq_map_size;
    void *cq_map; size_t cq_map_size;
    size_t sqes_size;
    /// Entries prepared but not yet submitted.
    unsigned pending;
} clinux_uring;

/// Sets up a ring with room for `entries` submissions. Returns 0, or -errno (ENOSYS, EPERM
/// when io_uring is disabled, ENOMEM...). The caller then uses plain system calls instead.
int clinux_uring_init(clinux_uring *ring, unsigned entries);
void clinux_uring_free(clinux_uring *ring);
/// Queues a non-blocking send of `length` bytes at `bytes` on `fd`; its completion carries
/// `tag`. Returns 0, or -1 when the submission queue is full (submit first).
int clinux_uring_prepare_send(clinux_uring *ring, int fd, const void *bytes, size_t length, uint64_t tag);
/// Submits what is queued and waits until every submitted send has completed (non-blocking
/// sends complete at once). Returns the number submitted, or -errno.
int clinux_uring_submit_and_wait(clinux_uring *ring);
/// Takes the next completion: returns 1 and fills `tag` and `result` (bytes sent or
/// -errno), or 0 when there is none.
int clinux_uring_next_completion(clinux_uring *ring, uint64_t *tag, int32_t *result);
#endif
