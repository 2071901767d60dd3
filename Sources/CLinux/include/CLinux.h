#ifndef TOMBOLA_CLINUX_H
#define TOMBOLA_CLINUX_H
// Linux interfaces that Swift's Glibc module does not export.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/resource.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <signal.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <time.h>
#include "clinux_uring.h"

/// `accept4` is declared only under _GNU_SOURCE, which Swift's Glibc module is built without.
extern int accept4(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags);

/// `errno` as a function, so Swift reads the calling thread's value.
static inline int clinux_errno(void) { return errno; }
#endif
