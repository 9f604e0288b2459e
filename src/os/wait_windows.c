/* wait_windows.c: wtp_wait.h on Windows 8 and later.
 *
 * WaitOnAddress / WakeByAddressSingle / WakeByAddressAll (Synchronization.lib,
 * see binding.gyp). WaitOnAddress compares the word with the expected value
 * and sleeps only if they are equal, atomically with respect to the wakes,
 * like a futex; it returns TRUE on a wake (which may be spurious) or when
 * the values differ, FALSE with ERROR_TIMEOUT when its timeout ran out.
 *
 * Its timeout is relative and in milliseconds, so wtp__wait keeps the
 * absolute deadline on the QueryPerformanceCounter clock (wtp__now_ns in
 * wtp_park.c reads it on Windows), passes the
 * remainder rounded up, and only reports a timeout once that clock has
 * reached the deadline. Windows has no EINTR: an alertable APC does not end
 * WaitOnAddress.
 *
 * Compiled and linked for real in CI for x86-64 Windows with MinGW-w64
 * (scripts/cross-prebuild.js: zig cc; WaitOnAddress and the wakes come from
 * api-ms-win-core-synch-l1-2-0.dll, as MSVC's Synchronization.lib points
 * them), but never run there: no Windows machine. Written against the
 * documented Win32 contract.
 */
/* WaitOnAddress is declared for Windows 8 (0x0602) and later. */
#if !defined(_WIN32_WINNT) || _WIN32_WINNT < 0x0602
#undef _WIN32_WINNT
#define _WIN32_WINNT 0x0602
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <stdatomic.h>
#include <stdint.h>

#include "wtp_wait.h"

int wtp__wait(int32_t* addr, int32_t expected, uint64_t deadline_ns) {
  for (;;) {
    DWORD ms = INFINITE;
    if (deadline_ns != UINT64_MAX) {
      uint64_t now = wtp__now_ns();
      if (now >= deadline_ns) {
        /* Past the deadline: a differing value still answers "changed".
         * Relaxed: the caller re-reads with the order it needs. */
        return atomic_load_explicit((_Atomic int32_t*)addr,
                                    memory_order_relaxed) != expected;
      }
      uint64_t r = (deadline_ns - now + 999999u) / 1000000u; /* round up */
      ms = r >= INFINITE ? INFINITE - 1 : (DWORD)r;
    }
    int32_t compare = expected;
    if (WaitOnAddress((volatile VOID*)addr, &compare, sizeof compare, ms))
      return 1; /* woken (maybe spuriously) or the value differed */
    if (GetLastError() == ERROR_TIMEOUT) {
      if (wtp__now_ns() >= deadline_ns) return 0;
      continue; /* the tick-based timeout came early: wait the rest */
    }
    /* No other failure is documented; report a spurious wake after a short
     * sleep so the caller polls instead of spinning. */
    Sleep(1);
    return deadline_ns == UINT64_MAX || wtp__now_ns() < deadline_ns;
  }
}

void wtp__wake_one(int32_t* addr) { WakeByAddressSingle((PVOID)addr); }

void wtp__wake_all(int32_t* addr) { WakeByAddressAll((PVOID)addr); }

/* wtp_wait.h: Windows offers no cheap per-thread run delay; unknown. */
int wtp__os_cpu_wait_permille(void) { return -1; }
