# wasi_thread_start(tid, start_arg): the wasi-threads entry of a new thread.
#
# start_arg points to a wave_thread record (wave.c): +0 holds the top of the
# stack the spawner reserved for this thread, +4 the `done` word its joiner
# waits on. The stack pointer is set before any C runs; after the C body
# returns, `done` is stored and notified here, so no C frame (and no stack
# access) follows the moment the joiner may recycle the record and stack.

	.text
	.globaltype	__stack_pointer, i32
	.functype	wave_thread_main (i32, i32) -> ()

	.globl	wasi_thread_start
	.type	wasi_thread_start,@function
wasi_thread_start:
	.functype	wasi_thread_start (i32, i32) -> ()
	local.get	1
	i32.load	0
	global.set	__stack_pointer

	local.get	0
	local.get	1
	call	wave_thread_main

	local.get	1
	i32.const	1
	i32.atomic.store	4
	local.get	1
	i32.const	-1
	memory.atomic.notify	4
	drop
	end_function
