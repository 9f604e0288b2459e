/* wtp_memory.h: advice to the OS about memory the addon did not allocate.
 *
 * The room: src/os/, one file per OS behind this contract (binding.gyp picks
 * exactly one). It includes the C library and the OS's headers only.
 *
 *   memory_linux.c  madvise(2): MADV_HUGEPAGE (transparent huge pages) and
 *                   MADV_DONTNEED (pages given back); sysfs, read-only, for
 *                   whether a hypervisor takes free huge pages back
 *   memory_none.c   every other OS: no advice is given, no page given back
 *
 * The runner asks it for a program's wasm memory (lib/program/memory.js):
 * huge pages when the memory is made, and its pages back when the program
 * has ended.
 * A real program first touches tens of MiB of that memory (zstd's windows
 * and job buffers), one page fault per 4 KiB page, and a fault costs
 * microseconds on a virtual machine; backed by 2 MiB pages, the same memory
 * takes one fault per 2 MiB (about a tenth of
 * `zstd -T2 -3`'s run on a 2-vCPU VM: the bench's group 13). Where the system's
 * transparent huge pages are "always" the advice changes nothing; where they
 * are "never" the kernel ignores it.
 */
#ifndef WTP_MEMORY_H
#define WTP_MEMORY_H

#include <stdbool.h>
#include <stddef.h>

/* Asks the OS to back the whole pages inside [base, base + length) with huge
 * pages as they are first touched. Pure advice: the memory's content,
 * protection and size never change, whatever the answer; a range that holds
 * no whole page, or that wraps around the address space, is left alone.
 * The range must stay mapped during the call (the caller holds the V8
 * backing store it belongs to). Returns true when the OS took the advice. */
bool wtp__os_advise_huge_pages(void* base, size_t length);

/* Whether the kernel hands free memory in blocks of a huge page's size back
 * to the hypervisor it runs under (free page reporting: a virtio balloon
 * with the reporting feature, as Firecracker's, QEMU's free-page-reporting
 * and cloud VMs give), read from the sysfs tree mounted at `sysfs` ("/sys";
 * the tests pass a tree of their own). There a huge page's first touch takes
 * a block the host has taken back, and the kernel's zeroing of its 2 MiB
 * waits for the host to back it again: milliseconds per huge page, several
 * times what the 4 KiB pages cost (which mostly come from smaller free
 * blocks the host still backs). So the advice above costs a program more
 * than it saves, whenever the memory it reuses was freed a few seconds ago.
 * False where any file it needs is missing or unreadable (no reporting
 * device, no transparent huge pages) or `sysfs` is NULL. */
bool wtp__os_free_huge_pages_reported(const char* sysfs);

/* Gives the whole pages inside [base, base + length) back to the OS: they are
 * no longer resident, and read as zero when next touched (then the OS backs
 * them again, one fault per page); the range stays mapped, readable and
 * writable, at the same size. For memory that nobody reads any more: a
 * finished program's memory stays allocated until V8 collects it, and
 * resident with it (gigabytes between collections for an embedder that runs
 * program after program), unless given back. The range is the caller's to
 * name, as for the advice above (mapped for the whole call; a range with no
 * whole page, or that wraps, is left alone). Returns true when the OS took
 * the pages back (memory_none.c: never; the memory stays resident until it
 * is freed). */
bool wtp__os_release_pages(void* base, size_t length);

#endif /* WTP_MEMORY_H */
