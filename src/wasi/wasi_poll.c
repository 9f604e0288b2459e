/* wasi_poll.c: waiting for a peer, and stopping; poll_oneoff.
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
 *   - one the program opened (path_open, sock_accept): its description is
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
#include <time.h>
#include <unistd.h>

#include "wasi_errno.h"
#include "wasi_table.h"

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

/* ---- poll_oneoff ---- */

#define SUBSCRIPTION_SIZE 48
#define EVENT_SIZE 32
#define STACK_SUBSCRIPTIONS 16

static uint64_t load64(const wtp_wasi_memory *m, uint64_t ptr) {
  return (uint64_t)wtp__wasi_load32(m, ptr) |
         (uint64_t)wtp__wasi_load32(m, ptr + 4) << 32;
}

static uint64_t now_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One subscription as read from the guest, and what became of it. */
typedef struct subscription {
  uint64_t userdata;
  uint8_t type;
  uint16_t error;         /* an event with this error is due at once */
  int ready;              /* its event is due */
  uint64_t deadline;      /* clock: CLOCK_MONOTONIC ns (UINT64_MAX: never) */
  wtp__wasi_entry *entry; /* fd: a reference, put at the end */
  int poll_index;         /* fd: its pollfd, or -1 (a regular file) */
  uint64_t nbytes;        /* fd: the event's nbytes */
  uint16_t flags;         /* fd: the event's flags */
} subscription;

static uint64_t saturating_add(uint64_t a, uint64_t b) {
  return a + b < a ? UINT64_MAX : a + b;
}

static void read_clock(subscription *sub, const wtp_wasi_memory *memory,
                       uint64_t at) {
  uint32_t id = wtp__wasi_load32(memory, at + 16);
  uint64_t timeout = load64(memory, at + 24);
  uint16_t flags = (uint16_t)wtp__wasi_load32(memory, at + 40);
  uint64_t mono = now_ns(CLOCK_MONOTONIC);
  if (id == WASI_CLOCK_MONOTONIC) {
    sub->deadline = flags & WASI_SUBCLOCKFLAGS_ABSTIME
                        ? timeout
                        : saturating_add(mono, timeout);
  } else if (id == WASI_CLOCK_REALTIME) {
    if (flags & WASI_SUBCLOCKFLAGS_ABSTIME) {
      uint64_t real = now_ns(CLOCK_REALTIME);
      sub->deadline =
          timeout <= real ? mono : saturating_add(mono, timeout - real);
    } else {
      sub->deadline = saturating_add(mono, timeout);
    }
  } else {
    sub->error = WASI_EINVAL; /* CPU-time clocks cannot bound a wait */
    sub->ready = 1;
  }
}

/* An fd subscription: a regular file is ready at once; a stream gets a pollfd. */
static void read_fd(wtp_wasi *wasi, subscription *sub,
                    const wtp_wasi_memory *memory, uint64_t at,
                    struct pollfd *fds, int *nfds) {
  uint32_t fd = wtp__wasi_load32(memory, at + 16);
  uint32_t err = wtp__wasi_fd_get(wasi, fd, &sub->entry);
  if (err != WASI_ESUCCESS) {
    sub->entry = NULL;
    sub->error = (uint16_t)err;
    sub->ready = 1;
    return;
  }
  if (sub->entry->io_kind == WASI_IO_FILE) {
    sub->ready = 1;
    if (sub->type == WASI_EVENTTYPE_FD_READ) {
      struct stat st;
      off_t at_offset = lseek(sub->entry->host_fd, 0, SEEK_CUR);
      if (fstat(sub->entry->host_fd, &st) == 0 && at_offset >= 0 &&
          st.st_size > at_offset) {
        sub->nbytes = (uint64_t)(st.st_size - at_offset);
      }
    }
    return;
  }
  sub->poll_index = *nfds;
  fds[*nfds].fd = sub->entry->io_fd;
  fds[*nfds].events = sub->type == WASI_EVENTTYPE_FD_READ ? POLLIN : POLLOUT;
  fds[*nfds].revents = 0;
  (*nfds)++;
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
static uint32_t wait_events(wtp_wasi *wasi, subscription *subs, uint32_t count,
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
      } else if (sub->poll_index >= 0 && n > 0) {
        fd_outcome(sub, &fds[sub->poll_index]);
      }
      any_ready |= sub->ready;
    }
    if (any_ready) return WASI_ESUCCESS;
  }
}

static uint32_t write_events(const wtp_wasi_memory *memory, uint64_t out,
                             const subscription *subs, uint32_t count,
                             uint64_t nevents_ptr) {
  uint32_t written = 0;
  for (uint32_t i = 0; i < count; i++) {
    const subscription *sub = &subs[i];
    if (!sub->ready) continue;
    uint64_t at = out + (uint64_t)written * EVENT_SIZE;
    memset(memory->base + at, 0, EVENT_SIZE);
    wtp__wasi_store64(memory, at, sub->userdata);
    memory->base[at + 8] = (uint8_t)sub->error;
    memory->base[at + 9] = (uint8_t)(sub->error >> 8);
    memory->base[at + 10] = sub->type;
    if (sub->type != WASI_EVENTTYPE_CLOCK && sub->error == 0) {
      wtp__wasi_store64(memory, at + 16, sub->nbytes);
      memory->base[at + 24] = (uint8_t)sub->flags;
      memory->base[at + 25] = (uint8_t)(sub->flags >> 8);
    }
    written++;
  }
  wtp__wasi_store32(memory, nevents_ptr, written);
  return WASI_ESUCCESS;
}

WTP__WASI_CALL(poll_oneoff) {
  uint64_t in = args[0], out = args[1], count64 = args[2],
           nevents_ptr = args[3];
  /* Subscription in, event out (2 x 48- and 32-byte records), nevents. */
  if (count64 == 0) return WASI_EINVAL;
  if (!wtp__wasi_range_ok(memory, in, count64 * SUBSCRIPTION_SIZE) ||
      !wtp__wasi_range_ok(memory, out, count64 * EVENT_SIZE) ||
      !wtp__wasi_range_ok(memory, nevents_ptr, 4)) {
    return WASI_EFAULT;
  }
  uint32_t count = (uint32_t)count64;
  subscription stack_subs[STACK_SUBSCRIPTIONS];
  struct pollfd stack_fds[STACK_SUBSCRIPTIONS + 1];
  subscription *subs = stack_subs;
  struct pollfd *fds = stack_fds;
  if (count > STACK_SUBSCRIPTIONS) {
    subs = malloc(count * sizeof *subs);
    fds = malloc(((size_t)count + 1) * sizeof *fds);
    if (subs == NULL || fds == NULL) {
      free(subs);
      free(fds);
      return WASI_ENOMEM;
    }
  }
  /* Each subscription's tag is read from guest memory once, here, and
   * checked before anything else happens (another guest thread may change
   * the memory meanwhile: only this copy is used). */
  uint32_t err = WASI_ESUCCESS;
  for (uint32_t i = 0; i < count && err == WASI_ESUCCESS; i++) {
    subs[i].type = memory->base[in + (uint64_t)i * SUBSCRIPTION_SIZE + 8];
    if (subs[i].type > WASI_EVENTTYPE_FD_WRITE) err = WASI_EINVAL;
  }
  if (err != WASI_ESUCCESS) {
    if (subs != stack_subs) {
      free(subs);
      free(fds);
    }
    return err;
  }
  int nfds = 0, any_ready = 0;
  for (uint32_t i = 0; i < count; i++) {
    uint64_t at = in + (uint64_t)i * SUBSCRIPTION_SIZE;
    subscription *sub = &subs[i];
    uint8_t type = sub->type;
    memset(sub, 0, sizeof *sub);
    sub->userdata = load64(memory, at);
    sub->type = type;
    sub->poll_index = -1;
    sub->deadline = UINT64_MAX;
    if (sub->type == WASI_EVENTTYPE_CLOCK) {
      read_clock(sub, memory, at);
    } else {
      read_fd(wasi, sub, memory, at, fds, &nfds);
    }
    any_ready |= sub->ready;
  }
  err = wait_events(wasi, subs, count, fds, nfds, any_ready);
  if (err == WASI_ESUCCESS)
    err = write_events(memory, out, subs, count, nevents_ptr);
  for (uint32_t i = 0; i < count; i++) {
    if (subs[i].entry != NULL) wtp__wasi_fd_put(subs[i].entry);
  }
  if (subs != stack_subs) {
    free(subs);
    free(fds);
  }
  return err;
}
