#ifndef KWSUGGEST_CSYSTEM_H
#define KWSUGGEST_CSYSTEM_H
// Exposes the Linux system headers that Swift's Glibc module hides (epoll, eventfd, TCP options, malloc's
// tuning: mallopt and malloc_trim),
// plus an async-signal-safe signal forwarder that Swift cannot write itself (a C handler may not capture).
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <netinet/tcp.h>
#include <errno.h>
#include <malloc.h>

static inline int csystem_errno(void) { return errno; }

/// Installs a handler for `signo` that writes the signal number as one byte to `fd` (a non-blocking pipe or
/// eventfd-free self-pipe). Only `write(2)` runs in the handler, which is async-signal-safe; errno is preserved.
/// Returns 0 on success, -1 with errno set on failure.
int csystem_forward_signal(int signo, int fd);

/// accept4(2) and pipe2(2) need _GNU_SOURCE, which Swift's Glibc module does not define.
int csystem_accept4(int fd, int flags);
int csystem_pipe2(int fds[2], int flags);

/// Restores the default disposition of `signo`. Returns 0 on success, -1 with errno set.
int csystem_default_signal(int signo);
#endif
