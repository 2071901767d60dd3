#include "clinux_uring.h"
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/io_uring.h>

static int ring_setup(unsigned entries, struct io_uring_params *params, unsigned flags) {
    memset(params, 0, sizeof *params);
    params->flags = flags | IORING_SETUP_CQSIZE;
    params->cq_entries = entries * 2;
    int fd = (int)syscall(__NR_io_uring_setup, entries, params);
    return fd < 0 ? -errno : fd;
}

int clinux_uring_init(clinux_uring *ring, unsigned entries) {
    memset(ring, 0, sizeof *ring);
    ring->fd = -1;
    struct io_uring_params params;
    // Newer kernels (6.1+) run completions only when this thread asks: no interrupts of
    // the loop thread. Older kernels refuse these flags; a plain ring works there too.
    int fd = ring_setup(entries, &params, IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_SUBMIT_ALL);
    if (fd == -EINVAL) fd = ring_setup(entries, &params, 0);
    if (fd < 0) return fd;
    if (!(params.features & IORING_FEAT_NODROP)) {
        close(fd);
        return -ENOTSUP;
    }
    ring->fd = fd;
    ring->entries = params.sq_entries;
    ring->sq_map_size = params.sq_off.array + params.sq_entries * sizeof(unsigned);
    ring->cq_map_size = params.cq_off.cqes + params.cq_entries * sizeof(struct io_uring_cqe);
    ring->sqes_size = params.sq_entries * sizeof(struct io_uring_sqe);
    ring->sq_map = mmap(0, ring->sq_map_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
    ring->cq_map = mmap(0, ring->cq_map_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_CQ_RING);
    ring->sqes = mmap(0, ring->sqes_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
    if (ring->sq_map == MAP_FAILED || ring->cq_map == MAP_FAILED || ring->sqes == MAP_FAILED) {
        int code = errno;
        if (ring->sq_map == MAP_FAILED) ring->sq_map = 0;
        if (ring->cq_map == MAP_FAILED) ring->cq_map = 0;
        if (ring->sqes == MAP_FAILED) ring->sqes = 0;
        clinux_uring_free(ring);
        return -code;
    }
    char *sq = ring->sq_map, *cq = ring->cq_map;
    ring->sq_head = (unsigned *)(sq + params.sq_off.head);
    ring->sq_tail = (unsigned *)(sq + params.sq_off.tail);
    ring->sq_mask = (unsigned *)(sq + params.sq_off.ring_mask);
    ring->sq_array = (unsigned *)(sq + params.sq_off.array);
    ring->cq_head = (unsigned *)(cq + params.cq_off.head);
    ring->cq_tail = (unsigned *)(cq + params.cq_off.tail);
    ring->cq_mask = (unsigned *)(cq + params.cq_off.ring_mask);
    ring->cqes = cq + params.cq_off.cqes;
    return 0;
}

void clinux_uring_free(clinux_uring *ring) {
    if (ring->sqes) munmap(ring->sqes, ring->sqes_size);
    if (ring->cq_map) munmap(ring->cq_map, ring->cq_map_size);
    if (ring->sq_map) munmap(ring->sq_map, ring->sq_map_size);
    if (ring->fd >= 0) close(ring->fd);
    memset(ring, 0, sizeof *ring);
    ring->fd = -1;
}

int clinux_uring_prepare_send(clinux_uring *ring, int fd, const void *bytes, size_t length, uint64_t tag) {
    unsigned head = __atomic_load_n(ring->sq_head, __ATOMIC_ACQUIRE);
    unsigned tail = *ring->sq_tail + ring->pending;
    if (tail - head >= ring->entries) return -1;
    unsigned index = tail & *ring->sq_mask;
    struct io_uring_sqe *sqe = (struct io_uring_sqe *)ring->sqes + index;
    memset(sqe, 0, sizeof *sqe);
    sqe->opcode = IORING_OP_SEND;
    sqe->fd = fd;
    sqe->addr = (uint64_t)(uintptr_t)bytes;
    sqe->len = (uint32_t)length;
    // MSG_DONTWAIT: a full socket buffer completes at once with -EAGAIN (then the loop
    // waits for EPOLLOUT), instead of io_uring waiting for room on its own.
    sqe->msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL;
    sqe->user_data = tag;
    ring->sq_array[index] = index;
    ring->pending += 1;
    return 0;
}

int clinux_uring_submit_and_wait(clinux_uring *ring) {
    unsigned count = ring->pending;
    if (count == 0) return 0;
    __atomic_store_n(ring->sq_tail, *ring->sq_tail + count, __ATOMIC_RELEASE);
    ring->pending = 0;
    unsigned submitted = 0;
    while (submitted < count) {
        // Sends on non-blocking sockets run during the submission itself, and their
        // completions are posted before it returns.
        long result = syscall(__NR_io_uring_enter, ring->fd, count - submitted, 0, 0, 0, 0);
        if (result < 0 && errno == EINTR) continue;
        if (result <= 0) break;
        submitted += (unsigned)result;
    }
    // Wait for any completion not posted yet (the caller's buffers must stay put until the
    // kernel is done with them).
    while (__atomic_load_n(ring->cq_tail, __ATOMIC_ACQUIRE) - *ring->cq_head < submitted) {
        long result = syscall(__NR_io_uring_enter, ring->fd, 0, submitted, IORING_ENTER_GETEVENTS, 0, 0);
        if (result < 0 && errno != EINTR) return -errno;
    }
    // Entries the kernel did not take stay in the queue with stale buffers: the caller must
    // not use this ring again.
    if (submitted < count) return -EIO;
    return (int)submitted;
}

int clinux_uring_next_completion(clinux_uring *ring, uint64_t *tag, int32_t *result) {
    unsigned head = *ring->cq_head;
    if (head == __atomic_load_n(ring->cq_tail, __ATOMIC_ACQUIRE)) return 0;
    struct io_uring_cqe *cqe = (struct io_uring_cqe *)ring->cqes + (head & *ring->cq_mask);
    *tag = cqe->user_data;
    *result = cqe->res;
    __atomic_store_n(ring->cq_head, head + 1, __ATOMIC_RELEASE);
    return 1;
}
