#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_pool.c (test/fuzz/corpus/). Each seed is a
readable sequence of operations in the harness's byte encoding."""
import os

V = {0: 0, 1: 1, -1: 2, 2: 3, 3: 4, 4: 5, 5: 6, 6: 7, 7: 8, 8: 9,
     0x1ffffffe: 14, 0x1fffffff: 15, 0x20000000: 16, 0x7fffffff: 17,
     -0x80000000: 18, 0x7774706e: 20, -8: 21}

def wf(slots):            # well-formed buffer with `slots` slots
    return [1 | (slots << 1)]
def raw(nwords):          # any length
    return [(nwords << 1) & 0xfe]
def fmt(cap, native=1):   return [0, V[cap], native]
def open_(n):             return [1, V[n]]
def arm(slot, md=0):      return [2, slot, md]
def retire(slot):         return [3, slot]
def reads(slot):          return [4, slot]
def release(slot, cur=1): return [5, slot, 1 if cur else 2]
def take(slot):           return [6, slot]
def finish(slot):         return [7, slot]
report = [8]
def spawn(k, cfg=None, grow=(0, 0, 0, 0), disp=(0, 0, 0, 0), arg=7):
    # cfg (first use of spawner k): bit0 owner, bit1 grow, bit2 dispatch
    b = [9, k] + ([cfg] if cfg is not None else []) + list(grow) + list(disp) + [V[arg]]
    return b
def fresh(k):             return [12, k]
def token(slot, tid, generation=0):  # a wait token stopped by its thread id
    return [12, 0x40 | generation, slot, V[tid]]
def corrupt(word, v):     return [13, word, V[v]]

seeds = {
    "browser-cycle": wf(2) + fmt(2) + open_(2) + arm(0) + arm(1) + spawn(0, 0)
        + spawn(0) + spawn(0) + take(0) + take(1) + finish(0) + reads(0)
        + release(1) + report,
    "node-grow": wf(3) + fmt(3) + spawn(0, 2) + spawn(0) + take(0) + finish(0)
        + spawn(0) + spawn(0) + spawn(0) + report,
    "grow-fails": wf(2) + fmt(2) + spawn(0, 2, grow=(1, 0, 0, 0)) + spawn(0)
        + report,
    "retire-in-grow": wf(2) + fmt(2) + spawn(0, 2, grow=(2, 0, 0, 0)) + report
        + reads(0) + reads(1),
    "tid-overflow": wf(2) + fmt(2) + corrupt(1, 0x1fffffff) + spawn(0, 2)
        + spawn(0) + spawn(0) + report,
    "tid-overflow-retired": wf(2) + fmt(2) + corrupt(1, 0x20000000)
        + spawn(0, 2, grow=(2, 0, 0, 0)) + reads(0),
    "dispatch": wf(2) + fmt(2) + open_(2) + arm(0, 1) + arm(1, 1)
        + spawn(0, 0) + spawn(1, 5, disp=(0, 1, 0, 0)) + spawn(1)
        + release(0) + report,
    "hostile-header": wf(2) + fmt(2) + corrupt(5, 0x7fffffff)
        + corrupt(6, 0x7fffffff) + spawn(0, 2) + report + corrupt(5, -1)
        + spawn(1, 2) + corrupt(5, -0x80000000) + report,
    "hostile-state": wf(2) + fmt(2) + open_(2) + arm(0) + [13, 8, 8]
        + [13, 16, 0] + spawn(0, 1) + report + [13, 11, 0xff, 0xff, 0xff, 0xff, 0xff]
        + spawn(1, 0) + report,
    "short-buffer": raw(12) + fmt(1) + open_(5) + spawn(0, 2) + report,
    "tiny": raw(5),
    "tokens": wf(2) + fmt(2) + open_(2) + arm(0) + arm(1) + token(0, 7)
        + token(1, -1, generation=1) + spawn(0, 0) + token(1, 0x7fffffff)
        + report,
}

d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
os.makedirs(d, exist_ok=True)
for name, b in seeds.items():
    with open(os.path.join(d, name), "wb") as f:
        f.write(bytes(x & 0xff for x in b))
print(f"{len(seeds)} seeds in {d}")
