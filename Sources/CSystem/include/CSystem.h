#ifndef KWSUGGEST_CSYSTEM_H
#define KWSUGGEST_CSYSTEM_H
// Exposes the Linux system headers that Swift's Glibc module hides (epoll, eventfd, TCP options).
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <netinet/tcp.h>
#include <errno.h>

static inline int csystem_errno(void) { return errno; }
#endif
