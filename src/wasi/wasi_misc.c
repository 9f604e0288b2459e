/* wasi_misc.c: args, environment, clocks, random, sched_yield, proc_raise.
 * Every call checks the guest ranges it will write before it writes; the
 * OS's side is wasi_clock.h. */
#include <stdlib.h>
#include <string.h>

#include "wasi_clock.h"
#include "wasi_errno.h"
#include "wasi_table.h"

/* argv_get / environ_get: count pointers at list_ptr, the strings at buf_ptr. */
static uint32_t strings_get(const wtp_wasi_memory *memory, uint64_t list_ptr,
                            uint64_t buf_ptr, const char *blob,
                            const uint32_t *offsets, uint32_t count,
                            uint32_t size) {
  if (!wtp__wasi_range_ok(memory, list_ptr, (uint64_t)count * 4) ||
      !wtp__wasi_range_ok(memory, buf_ptr, size)) {
    return WASI_EFAULT;
  }
  if (size > 0) memcpy(memory->base + buf_ptr, blob, size);
  for (uint32_t i = 0; i < count; i++) {
    wtp__wasi_store32(memory, list_ptr + 4 * (uint64_t)i,
                      (uint32_t)(buf_ptr + offsets[i]));
  }
  return WASI_ESUCCESS;
}

static uint32_t sizes_get(const wtp_wasi_memory *memory, uint64_t count_ptr,
                          uint64_t size_ptr, uint32_t count, uint32_t size) {
  if (!wtp__wasi_range_ok(memory, count_ptr, 4) ||
      !wtp__wasi_range_ok(memory, size_ptr, 4))
    return WASI_EFAULT;
  wtp__wasi_store32(memory, count_ptr, count);
  wtp__wasi_store32(memory, size_ptr, size);
  return WASI_ESUCCESS;
}

WTP__WASI_CALL(args_get) {
  return strings_get(memory, args[0], args[1], wasi->args_blob,
                     wasi->args_offsets, wasi->args_count, wasi->args_size);
}

WTP__WASI_CALL(args_sizes_get) {
  return sizes_get(memory, args[0], args[1], wasi->args_count, wasi->args_size);
}

WTP__WASI_CALL(environ_get) {
  return strings_get(memory, args[0], args[1], wasi->env_blob,
                     wasi->env_offsets, wasi->env_count, wasi->env_size);
}

WTP__WASI_CALL(environ_sizes_get) {
  return sizes_get(memory, args[0], args[1], wasi->env_count, wasi->env_size);
}

WTP__WASI_CALL(clock_res_get) {
  (void)wasi;
  uint64_t ns;
  if (!wtp__wasi_range_ok(memory, args[1], 8)) return WASI_EFAULT;
  uint32_t err = wtp__wasi_clock_res(args[0], &ns);
  if (err == WASI_ESUCCESS) wtp__wasi_store64(memory, args[1], ns);
  return err;
}

WTP__WASI_CALL(clock_time_get) {
  /* args[1] (precision) is a hint; one reading serves any. */
  (void)wasi;
  uint64_t ns;
  if (!wtp__wasi_range_ok(memory, args[2], 8)) return WASI_EFAULT;
  uint32_t err = wtp__wasi_clock_now(args[0], &ns);
  if (err == WASI_ESUCCESS) wtp__wasi_store64(memory, args[2], ns);
  return err;
}

WTP__WASI_CALL(random_get) {
  uint64_t ptr = args[0], len = args[1];
  (void)wasi;
  if (!wtp__wasi_range_ok(memory, ptr, len)) return WASI_EFAULT;
  return wtp__wasi_random(memory->base + ptr, len);
}

WTP__WASI_CALL(sched_yield) {
  (void)wasi, (void)memory, (void)args;
  wtp__wasi_yield();
  return WASI_ESUCCESS;
}

/* wasmtime does not raise signals in a guest either (it traps); here the
 * guest gets ENOSYS and may abort on its own. */
WTP__WASI_CALL(proc_raise) {
  (void)wasi, (void)memory, (void)args;
  return WASI_ENOSYS;
}
