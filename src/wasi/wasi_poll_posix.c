/* wasi_poll_posix.c: waiting for a peer, and stopping, on Linux and macOS
 * (wtp__wasi_wait_fd, and wasi_wait.h for poll_oneoff).
 *
 * Blocking and stopping
 * ---------------------
 * A call that waits for a peer never sleeps in a kernel call the stop
 * cannot end. It makes its descriptor's I/O non-blocking and, on EAGAIN,
 * waits in poll() on two descriptors: its own and the WASI's wake-up
 * descriptor (an eventfd on Linux, a pipe elsewhere). wtp_wasi_stop sets
 * `stopped` and then makes the wake-up descriptor readable for good (it is
 * never read), so every poll in progress returns and every later one
 * returns at once; the waiter then answers WTP_WASI_STOPPED. There is no
 * timeout and no retry count: a slow peer is waited for as long as it
 * takes.
 *
 * How a descriptor is made non-blocking without touching what others share
 * (the entry's io_kind, wasi_table.h):
 *   - one the program opened (path_open): its description is
 *     ours; it is marked O_NONBLOCK.
 *   - stdio (a dup of the host's, whose description the user's shell or
 *     another process shares): never marked O_NONBLOCK. On Linux a pipe,
 *     FIFO or terminal is reopened through /proc/self/fd/N, which gives a
 *     new description of the same pipe or device that is ours to mark; a
 *     socket uses recv/send with MSG_DONTWAIT. A description the host had
 *     already made non-blocking is used as it is.
 *   - otherwise (macOS stdio pipes and terminals; Linux if the reopen
 *     fails): poll() first, then one blocking read, or a write of at most
 *     PIPE_BUF bytes, which poll's POLLOUT promises room for; the entry's
 *     lock keeps the program's own threads from racing each other between
 *     the poll and the read. Residual: another PROCESS reading the same
 *     pipe or terminal can take the data between our poll and our read,
 *     which then blocks until more data comes or the peer closes, and a
 *     stop does not end it.
 * Regular files, directories and block devices never wait. A guest that
 * set NONBLOCK on its fd gets EAGAIN instead of a wait.
 *
 * poll_oneoff: fd_read/fd_write subscriptions are polled on the entry's
 * io_fd (real readiness; a regular file is always ready, nbytes = bytes to
 * its end for a read), clock subscriptions become the deadline of the poll
 * (the earliest one; relative or absolute, realtime or monotonic; CPU-time
 * clocks answer EINVAL in their event), and the wake-up descriptor ends it
 * on stop.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "wasi_errno.h"
#include "wasi_wait.h"

typedef wtp__wasi_subscription subscription;

uint32_t wtp__wasi_wait_fd(wtp_wasi *wasi, int fd, short events) {
  struct pollfd fds[2] = {{fd, events, 0}, {wasi->wake_fd, POLLIN, 0}};
  for (;;) {
    if (atomic_load(&wasi->stopped)) return WTP_WASI_STOPPED;
    int n = poll(fds, 2, -1);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return wtp__wasi_errno(errno);
    }
    if (fds[1].revents != 0 || atomic_load(&wasi->stopped))
      return WTP_WASI_STOPPED;
    if (fds[0].revents != 0) return WASI_ESUCCESS;
  }
}

/* ---- poll_oneoff's wait ---- */

static uint64_t now_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void wtp__wasi_wait_file_nbytes(wtp__wasi_entry *entry, uint64_t *nbytes) {
  struct stat st;
  off_t at_offset = lseek(entry->host_fd, 0, SEEK_CUR);
  if (fstat(entry->host_fd, &st) == 0 && at_offset >= 0 &&
      st.st_size > at_offset) {
    *nbytes = (uint64_t)(st.st_size - at_offset);
  }
}

/* After poll: what a stream subscription's revents say. */
static void fd_outcome(subscription *sub, const struct pollfd *pfd) {
  short revents = pfd->revents;
  if (revents == 0) return;
  sub->ready = 1;
  if (revents & POLLNVAL) {
    sub->error = WASI_EBADF;
    return;
  }
  if (revents & (POLLHUP | POLLERR))
    sub->flags |= WASI_EVENTRWFLAGS_FD_READWRITE_HANGUP;
  int avail = 0;
  if (sub->type == WASI_EVENTTYPE_FD_READ && (revents & POLLIN) &&
      ioctl(pfd->fd, FIONREAD, &avail) == 0 && avail > 0) {
    sub->nbytes = (uint64_t)avail;
  }
#ifdef F_GETPIPE_SZ
  if (sub->type == WASI_EVENTTYPE_FD_WRITE && (revents & POLLOUT)) {
    int size = fcntl(pfd->fd, F_GETPIPE_SZ);
    if (size > 0 && ioctl(pfd->fd, FIONREAD, &avail) == 0 && avail >= 0 &&
        avail < size) {
      sub->nbytes = (uint64_t)(size - avail);
    }
  }
#endif
}

/* Waits in poll until an fd is ready, the earliest deadline, or the stop. */
static uint32_t wait_polls(wtp_wasi *wasi, subscription *subs, uint32_t count,
                           struct pollfd *fds, int nfds, int any_ready) {
  fds[nfds].fd = wasi->wake_fd;
  fds[nfds].events = POLLIN;
  for (;;) {
    uint64_t deadline = UINT64_MAX;
    for (uint32_t i = 0; i < count; i++) {
      if (subs[i].type == WASI_EVENTTYPE_CLOCK && !subs[i].ready &&
          subs[i].deadline < deadline) {
        deadline = subs[i].deadline;
      }
    }
    uint64_t now = now_ns(CLOCK_MONOTONIC);
    int timeout_ms = -1;
    if (any_ready || deadline <= now) {
      timeout_ms = 0;
    } else if (deadline != UINT64_MAX) {
      uint64_t ms = (deadline - now + 999999) / 1000000;
      timeout_ms =
          ms > 86400000 ? 86400000 : (int)ms; /* a day at most per round */
    }
    if (atomic_load(&wasi->stopped)) return WTP_WASI_STOPPED;
    for (int i = 0; i <= nfds; i++) fds[i].revents = 0;
    int n = poll(fds, (nfds_t)nfds + 1, timeout_ms);
    if (n < 0 && errno != EINTR && errno != EAGAIN)
      return wtp__wasi_errno(errno);
    if (fds[nfds].revents != 0 || atomic_load(&wasi->stopped))
      return WTP_WASI_STOPPED;
    now = now_ns(CLOCK_MONOTONIC);
    for (uint32_t i = 0; i < count; i++) {
      subscription *sub = &subs[i];
      if (sub->type == WASI_EVENTTYPE_CLOCK) {
        if (!sub->ready && sub->deadline <= now) sub->ready = 1;
      } else if (sub->os_index >= 0 && n > 0) {
        fd_outcome(sub, &fds[sub->os_index]);
      }
      any_ready |= sub->ready;
    }
    if (any_ready) return WASI_ESUCCESS;
  }
}

uint32_t wtp__wasi_wait_events(wtp_wasi *wasi, subscription *subs,
                               uint32_t count, int any_ready) {
  struct pollfd stack_fds[17];
  struct pollfd *fds = stack_fds;
  if (count + 1 > sizeof stack_fds / sizeof stack_fds[0]) {
    fds = malloc(((size_t)count + 1) * sizeof *fds);
    if (fds == NULL) return WASI_ENOMEM;
  }
  int nfds = 0;
  for (uint32_t i = 0; i < count; i++) {
    subscription *sub = &subs[i];
    if (sub->type == WASI_EVENTTYPE_CLOCK || sub->entry == NULL ||
        sub->entry->io_kind == WASI_IO_FILE)
      continue;
    sub->os_index = nfds;
    fds[nfds].fd = sub->entry->io_fd;
    fds[nfds].events = sub->type == WASI_EVENTTYPE_FD_READ ? POLLIN : POLLOUT;
    fds[nfds].revents = 0;
    nfds++;
  }
  uint32_t err = wait_polls(wasi, subs, count, fds, nfds, any_ready);
  if (fds != stack_fds) free(fds);
  return err;
}
