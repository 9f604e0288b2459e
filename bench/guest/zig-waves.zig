// The Zig 0.11 twin of bench/guest/pthread-waves.c (std.Thread on
// wasi-threads, memory from std.heap.page_allocator): the same waves, the
// same stamps, the same STAMPS line. Built by bench/lib/real-guests.js.
//
//   zig-waves <lanes> <waves> <rounds> [volatile]
//
// Zig 0.11's own waits do not block in ReleaseFast on wasm: Futex.wait
// without a timeout (ResetEvent.wait, Mutex) and WasiThreadImpl.join wrap
// memory.atomic.wait32 in a non-volatile asm whose result every branch
// ignores once the `unreachable` arms are gone, so LLVM deletes the wait and
// the loops around it spin. "volatile" makes this
// program wait with its own volatile memory.atomic.wait32 instead: for the
// gate, and for each thread's end before std's join (which then only
// frees the thread's memory).
//
// Zig 0.11's spawn race (FINDINGS): a thread that ends before spawn stored
// its tid makes join wait for ever, so every thread of a wave waits on a
// gate the main thread opens after the wave's last spawn. entry is stamped
// before the gate; the body after it.

const std = @import("std");
const wasi = std.os.wasi;

const max_lanes = 64;

const Word = std.atomic.Atomic(u32);

// memory.atomic.wait32 / notify in volatile asm: kept whatever the result.
fn waitWord(word: *const Word, expect: u32) void {
    _ = asm volatile (
        \\local.get %[ptr]
        \\local.get %[expected]
        \\i64.const -1
        \\memory.atomic.wait32 0
        \\local.set %[ret]
        : [ret] "=r" (-> u32),
        : [ptr] "r" (&word.value),
          [expected] "r" (@as(i32, @bitCast(expect))),
    );
}

fn wakeWord(word: *const Word) void {
    _ = asm volatile (
        \\local.get %[ptr]
        \\i32.const -1
        \\memory.atomic.notify 0
        \\local.set %[ret]
        : [ret] "=r" (-> u32),
        : [ptr] "r" (&word.value),
    );
}

// Blocks until word != 0.
fn waitNonZero(word: *const Word) void {
    while (word.load(.Acquire) == 0) waitWord(word, 0);
}

fn setAndWake(word: *Word) void {
    word.store(1, .Release);
    wakeWord(word);
}

const Lane = struct {
    begin: u32,
    end: u32,
    rounds: u32,
    result: u32 = 0,
    entry_ns: u64 = 0,
    body_ns: u64 = 0,
    exit_ns: u64 = 0,
    gate: ?*std.Thread.ResetEvent,
    // volatile mode: the gate word and this lane's end.
    gate_word: ?*Word = null,
    done: Word = Word.init(0),
};

fn nowNs() u64 {
    var ts: wasi.timestamp_t = 0;
    _ = wasi.clock_time_get(wasi.CLOCK.MONOTONIC, 1, &ts);
    return ts;
}

fn mix(x: u32) u32 {
    var h = x;
    h ^= h >> 16;
    h *%= 0x7feb352d;
    h ^= h >> 15;
    h *%= 0x846ca68b;
    h ^= h >> 16;
    return h;
}

fn lane(w: *Lane) void {
    w.entry_ns = nowNs();
    if (w.gate_word) |g| waitNonZero(g) else if (w.gate) |g| g.wait();
    w.body_ns = nowNs();
    var acc: u32 = 0;
    var i = w.begin;
    while (i < w.end) : (i += 1) {
        var v = i;
        var r: u32 = 0;
        while (r < w.rounds) : (r += 1) v = mix(v +% r);
        acc +%= v;
    }
    w.result = acc;
    w.exit_ns = nowNs();
    setAndWake(&w.done);
}

fn printQuantiles(out: anytype, name: []const u8, v: []u64) !void {
    var sum: f64 = 0;
    for (v) |x| sum += @as(f64, @floatFromInt(x));
    std.mem.sort(u64, v, {}, std.sort.asc(u64));
    const n = v.len;
    const us = struct {
        fn at(w: []u64, i: usize) f64 {
            return if (w.len > 0) @as(f64, @floatFromInt(w[i])) / 1000.0 else 0;
        }
    };
    const mean: f64 = if (n > 0) sum / @as(f64, @floatFromInt(n)) / 1000.0 else 0;
    try out.print("\"{s}\":[{d:.2},{d:.2},{d:.2},{d:.2}],", .{ name, us.at(v, n / 2), us.at(v, n * 9 / 10), us.at(v, n * 99 / 100), mean });
}

pub fn main() !void {
    const allocator = std.heap.page_allocator;
    const args = try std.process.argsAlloc(allocator);
    defer std.process.argsFree(allocator, args);
    const lanes: u32 = if (args.len > 1) try std.fmt.parseInt(u32, args[1], 10) else 8;
    const waves: u32 = if (args.len > 2) try std.fmt.parseInt(u32, args[2], 10) else 100;
    const rounds: u32 = if (args.len > 3) try std.fmt.parseInt(u32, args[3], 10) else 16;
    const own_waits = args.len > 4 and std.mem.eql(u8, args[4], "volatile");
    if (lanes < 2 or lanes > max_lanes or waves < 1 or waves > 1000000) return error.BadArguments;

    const n: usize = @as(usize, waves) * (lanes - 1);
    const create = try allocator.alloc(u64, n);
    const start = try allocator.alloc(u64, n);
    const gate_wait = try allocator.alloc(u64, n);
    const body = try allocator.alloc(u64, n);
    const exit_join = try allocator.alloc(u64, n);
    const wave_ns = try allocator.alloc(u64, waves);
    const pages_before = @wasmMemorySize(0);
    var checksum: u32 = 0;
    const t_begin = nowNs();
    var k: usize = 0;
    var wave: u32 = 0;
    while (wave < waves) : (wave += 1) {
        const wave_start = nowNs();
        var gate = std.Thread.ResetEvent{};
        var gate_word = Word.init(0);
        var work: [max_lanes]Lane = undefined;
        var threads: [max_lanes]std.Thread = undefined;
        var called: [max_lanes]u64 = undefined;
        var l: u32 = 0;
        while (l < lanes) : (l += 1) {
            const base = wave * 7 * 64;
            work[l] = .{ .begin = base + 64 * l, .end = base + 64 * (l + 1), .rounds = rounds, .gate = if (l == 0) null else &gate, .gate_word = if (l == 0 or !own_waits) null else &gate_word };
        }
        l = 1;
        while (l < lanes) : (l += 1) {
            called[l] = nowNs();
            threads[l] = try std.Thread.spawn(.{ .allocator = allocator, .stack_size = 256 * 1024 }, lane, .{&work[l]});
            create[k + l - 1] = nowNs() - called[l];
        }
        if (own_waits) setAndWake(&gate_word) else gate.set();
        const gate_open = nowNs();
        lane(&work[0]);
        l = 1;
        while (l < lanes) : (l += 1) {
            var joined: u64 = undefined;
            if (own_waits) {
                waitNonZero(&work[l].done);
                joined = nowNs();
                threads[l].join(); // frees its memory (after a short spin until its tid is 0)
            } else {
                threads[l].join();
                joined = nowNs();
            }
            const at = k + l - 1;
            start[at] = work[l].entry_ns - called[l];
            // How long the thread waited at the gate after it opened (0 when
            // it arrived after the last spawn returned).
            gate_wait[at] = if (work[l].body_ns > gate_open) work[l].body_ns - @max(gate_open, work[l].entry_ns) else 0;
            body[at] = work[l].exit_ns - work[l].body_ns;
            exit_join[at] = joined - work[l].exit_ns;
        }
        wave_ns[wave] = nowNs() - wave_start;
        l = 0;
        while (l < lanes) : (l += 1) checksum ^= work[l].result +% l;
        k += lanes - 1;
    }
    const wall = nowNs() - t_begin;
    var buffered = std.io.bufferedWriter(std.io.getStdOut().writer());
    const out = buffered.writer();
    try out.print("STAMPS {{\"threads\":{d},", .{n});
    try printQuantiles(out, "createUs", create);
    try printQuantiles(out, "startUs", start);
    try printQuantiles(out, "gateUs", gate_wait);
    try printQuantiles(out, "bodyUs", body);
    try printQuantiles(out, "exitJoinUs", exit_join);
    try printQuantiles(out, "waveUs", wave_ns);
    try out.print("\"wallUs\":{d},\"pagesBefore\":{d},\"pagesAfter\":{d},\"checksum\":\"{x:0>8}\"}}\n", .{ wall / 1000, pages_before, @wasmMemorySize(0), checksum });
    try buffered.flush();
}
