/* wtp_mutex.h: a plain mutex, the OS's own: an SRWLOCK on Windows (zig's
 * MinGW-w64 has no pthread.h), a pthread mutex elsewhere.
 *
 * Header only (static inline), so that every file that needs a lock includes
 * it and no build list changes. No recursion, no try-lock, no condition
 * variable: the WASI (src/wasi/) holds these for short critical sections
 * only (its table, an entry's serialised I/O). An SRWLOCK needs no
 * destruction; wtp__mutex_destroy is a no-op there.
 */
#ifndef WTP_MUTEX_H
#define WTP_MUTEX_H

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

typedef SRWLOCK wtp__mutex;
#define WTP__MUTEX_INIT SRWLOCK_INIT

static inline int wtp__mutex_init(wtp__mutex *m) {
  InitializeSRWLock(m);
  return 0;
}
static inline void wtp__mutex_destroy(wtp__mutex *m) { (void)m; }
static inline void wtp__mutex_lock(wtp__mutex *m) {
  AcquireSRWLockExclusive(m);
}
static inline void wtp__mutex_unlock(wtp__mutex *m) {
  ReleaseSRWLockExclusive(m);
}
#else
#include <pthread.h>

typedef pthread_mutex_t wtp__mutex;
#define WTP__MUTEX_INIT PTHREAD_MUTEX_INITIALIZER

/* 0, or the error pthread_mutex_init answered. */
static inline int wtp__mutex_init(wtp__mutex *m) {
  return pthread_mutex_init(m, NULL);
}
static inline void wtp__mutex_destroy(wtp__mutex *m) {
  pthread_mutex_destroy(m);
}
static inline void wtp__mutex_lock(wtp__mutex *m) { pthread_mutex_lock(m); }
static inline void wtp__mutex_unlock(wtp__mutex *m) { pthread_mutex_unlock(m); }
#endif

#endif /* WTP_MUTEX_H */
