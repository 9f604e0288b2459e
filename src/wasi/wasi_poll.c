/* wasi_poll.c: poll_oneoff, the guest's side (the wait: wasi_wait.h).
 *
 * fd_read/fd_write subscriptions on a regular file, directory or block
 * device are ready at once (nbytes = bytes to its end for a read); on any
 * other descriptor the OS layer waits for real readiness. Clock
 * subscriptions become deadlines on the monotonic clock (the earliest one
 * bounds the wait; relative or absolute, realtime or monotonic; CPU-time
 * clocks answer EINVAL in their event), and the stop ends the wait.
 */
#include <stdlib.h>
#include <string.h>

#include "wasi_clock.h"
#include "wasi_errno.h"
#include "wasi_wait.h"

#define SUBSCRIPTION_SIZE 48
#define EVENT_SIZE 32
#define STACK_SUBSCRIPTIONS 16

typedef wtp__wasi_subscription subscription;

static uint64_t load64(const wtp_wasi_memory *m, uint64_t ptr) {
  return (uint64_t)wtp__wasi_load32(m, ptr) |
         (uint64_t)wtp__wasi_load32(m, ptr + 4) << 32;
}

static uint64_t now_ns(uint64_t clock) {
  uint64_t ns = 0;
  wtp__wasi_clock_now(clock, &ns);
  return ns;
}

static uint64_t saturating_add(uint64_t a, uint64_t b) {
  return a + b < a ? UINT64_MAX : a + b;
}

static void read_clock(subscription *sub, const wtp_wasi_memory *memory,
                       uint64_t at) {
  uint32_t id = wtp__wasi_load32(memory, at + 16);
  uint64_t timeout = load64(memory, at + 24);
  uint16_t flags = (uint16_t)wtp__wasi_load32(memory, at + 40);
  uint64_t mono = now_ns(WASI_CLOCK_MONOTONIC);
  if (id == WASI_CLOCK_MONOTONIC) {
    sub->deadline = flags & WASI_SUBCLOCKFLAGS_ABSTIME
                        ? timeout
                        : saturating_add(mono, timeout);
  } else if (id == WASI_CLOCK_REALTIME) {
    if (flags & WASI_SUBCLOCKFLAGS_ABSTIME) {
      uint64_t real = now_ns(WASI_CLOCK_REALTIME);
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

/* An fd subscription: a regular file is ready at once; a stream waits. */
static void read_fd(wtp_wasi *wasi, subscription *sub,
                    const wtp_wasi_memory *memory, uint64_t at) {
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
    if (sub->type == WASI_EVENTTYPE_FD_READ)
      wtp__wasi_wait_file_nbytes(sub->entry, &sub->nbytes);
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
  subscription *subs = stack_subs;
  if (count > STACK_SUBSCRIPTIONS) {
    subs = malloc(count * sizeof *subs);
    if (subs == NULL) return WASI_ENOMEM;
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
    if (subs != stack_subs) free(subs);
    return err;
  }
  int any_ready = 0;
  for (uint32_t i = 0; i < count; i++) {
    uint64_t at = in + (uint64_t)i * SUBSCRIPTION_SIZE;
    subscription *sub = &subs[i];
    uint8_t type = sub->type;
    memset(sub, 0, sizeof *sub);
    sub->userdata = load64(memory, at);
    sub->type = type;
    sub->os_index = -1;
    sub->deadline = UINT64_MAX;
    if (sub->type == WASI_EVENTTYPE_CLOCK) {
      read_clock(sub, memory, at);
    } else {
      read_fd(wasi, sub, memory, at);
    }
    any_ready |= sub->ready;
  }
  err = wtp__wasi_wait_events(wasi, subs, count, any_ready);
  if (err == WASI_ESUCCESS)
    err = write_events(memory, out, subs, count, nevents_ptr);
  for (uint32_t i = 0; i < count; i++) {
    if (subs[i].entry != NULL) wtp__wasi_fd_put(subs[i].entry);
  }
  if (subs != stack_subs) free(subs);
  return err;
}
