#define _GNU_SOURCE
#include <sys/socket.h>
#include <fcntl.h>
#include "CSystem.h"
#include <signal.h>
#include <string.h>
#include <unistd.h>

// One write end per signal number; written only before the handler is installed.
static volatile int forward_fds[65];

static void forward_handler(int signo) {
    int saved = errno;
    if (signo > 0 && signo < 65) {
        unsigned char byte = (unsigned char)signo;
        ssize_t ignored = write(forward_fds[signo], &byte, 1);
        (void)ignored;
    }
    errno = saved;
}

int csystem_forward_signal(int signo, int fd) {
    if (signo <= 0 || signo >= 65) { errno = EINVAL; return -1; }
    forward_fds[signo] = fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = forward_handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return sigaction(signo, &action, NULL);
}

int csystem_default_signal(int signo) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    return sigaction(signo, &action, NULL);
}

int csystem_accept4(int fd, int flags) { return accept4(fd, NULL, NULL, flags); }
int csystem_pipe2(int fds[2], int flags) { return pipe2(fds, flags); }
