/* wasi_wait.h: the OS layer of poll_oneoff (wasi_poll.c).
 *
 *   wasi_poll_posix.c     poll() on the subscribed descriptors and the
 *                         stop's wake-up descriptor
 *   wasi_poll_windows.c   WaitForMultipleObjects on the stop's event (and
 *                         console input handles), pipes looked at with
 *                         PeekNamedPipe between short waits
 *
 * wasi_poll.c reads every subscription from guest memory once, takes a
 * reference on each fd subscription's entry, turns clocks into deadlines on
 * the monotonic clock (wasi_clock.h), and writes the events; the OS layer
 * only waits.
 */
#ifndef WTP_WASI_WAIT_H
#define WTP_WASI_WAIT_H

#include <stdint.h>

#include "wasi_table.h"

/* One subscription as read from the guest, and what became of it. */
typedef struct wtp__wasi_subscription {
  uint64_t userdata;
  uint8_t type;
  uint16_t error;         /* an event with this error is due at once */
  int ready;              /* its event is due */
  uint64_t deadline;      /* clock: monotonic ns (UINT64_MAX: never) */
  wtp__wasi_entry *entry; /* fd: a reference, put at the end */
  int os_index;           /* fd: the OS layer's own (-1 at first) */
  uint64_t nbytes;        /* fd: the event's nbytes */
  uint16_t flags;         /* fd: the event's flags */
} wtp__wasi_subscription;

/* An fd subscription on a WASI_IO_FILE entry is ready at once; for a read,
 * *nbytes is what lies between the position and the end (0 if unknown). */
void wtp__wasi_wait_file_nbytes(wtp__wasi_entry *entry, uint64_t *nbytes);

/* Waits until a subscription is ready (an fd subscription on another kind
 * of entry: its readiness, nbytes and flags; a clock: its deadline has
 * passed), or the stop (WTP_WASI_STOPPED). any_ready: one is ready already,
 * so only look, never wait. Sets `ready` on every subscription found ready. */
uint32_t wtp__wasi_wait_events(wtp_wasi *wasi, wtp__wasi_subscription *subs,
                               uint32_t count, int any_ready);

#endif /* WTP_WASI_WAIT_H */
