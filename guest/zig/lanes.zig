// A wasi-threads program built by Zig 0.11 (std.Thread on wasm32-wasi), for
// the runner's tests: `lanes.wasm <lanes>` splits three waves of work across
// <lanes> threads (the main thread takes lane 0), prints one checksum per
// wave, which does not depend on <lanes>, and exits with proc_exit(7) after a
// last line without a newline.
//
// Zig 0.11's WasiThreadImpl.spawn stores the tid in the thread's handle after
// thread-spawn returns, and the thread clears it when it ends; a thread that
// ends before that store leaves it set and join() waits for ever. So every
// thread first waits on a ResetEvent that is set only after every spawn of
// its wave has returned.

const std = @import("std");

const max_lanes = 16;
const per_wave: u32 = 1 << 15;

const Work = struct {
    begin: u32,
    end: u32,
    result: u32 = 0,
    gate: *std.Thread.ResetEvent,
};

fn mix(x: u32) u32 {
    var h = x;
    h ^= h >> 16;
    h *%= 0x7feb352d;
    h ^= h >> 15;
    h *%= 0x846ca68b;
    h ^= h >> 16;
    return h;
}

fn lane(work: *Work) void {
    work.gate.wait();
    var acc: u32 = 0;
    var i = work.begin;
    while (i < work.end) : (i += 1) {
        var v = i;
        var r: u32 = 0;
        while (r < 32) : (r += 1) v = mix(v +% r);
        acc +%= v;
    }
    work.result = acc;
}

pub fn main() !void {
    const allocator = std.heap.page_allocator;
    const args = try std.process.argsAlloc(allocator);
    defer std.process.argsFree(allocator, args);
    const lanes: u32 = if (args.len > 1) try std.fmt.parseInt(u32, args[1], 10) else 1;
    if (lanes < 1 or lanes > max_lanes) return error.LanesOutOfRange;

    const stdout = std.io.getStdOut().writer();
    var env = try std.process.getEnvMap(allocator);
    defer env.deinit();
    if (env.get("GREETING")) |greeting| try stdout.print("{s}\n", .{greeting});

    var total: u32 = 0;
    var wave: u32 = 0;
    while (wave < 3) : (wave += 1) {
        var gate = std.Thread.ResetEvent{};
        var works: [max_lanes]Work = undefined;
        var threads: [max_lanes]std.Thread = undefined;
        const base = wave * per_wave;
        var k: u32 = 0;
        while (k < lanes) : (k += 1) {
            works[k] = .{ .begin = base + per_wave * k / lanes, .end = base + per_wave * (k + 1) / lanes, .gate = &gate };
        }
        k = 1;
        while (k < lanes) : (k += 1) {
            threads[k] = try std.Thread.spawn(.{ .allocator = allocator, .stack_size = 256 * 1024 }, lane, .{&works[k]});
        }
        gate.set();
        lane(&works[0]);
        k = 1;
        while (k < lanes) : (k += 1) threads[k].join();
        var sum: u32 = 0;
        k = 0;
        while (k < lanes) : (k += 1) sum +%= works[k].result;
        try stdout.print("wave {d}: {x:0>8}\n", .{ wave, sum });
        total ^= sum;
    }
    try stdout.print("total {x:0>8}, bye", .{total});
    std.process.exit(7);
}
