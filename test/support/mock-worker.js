// A scripted stand-in for the browser's global Worker, for driving the
// browser branch of lib/host/host.js under Node.
//
// Each instance follows a behaviour chosen by its construction index:
//   "ready2"        replies {t:"ready", ok:true, protocol:2} (a current worker)
//   "ready1"        replies {t:"ready", ok:true, protocol:1} (a legacy worker)
//   "ready"         replies {t:"ready", ok:true} with no protocol (legacy)
//   "not-ready"     replies {t:"ready", ok:false, error:"mock: instantiate failed"}
//   "silent"        never replies (a probe timeout)
//   "throw"         the constructor throws
//   "error-before"  fires onerror without ever speaking (unreachable script)
//   "error-after"   posts a message, then fires onerror (spoke, then failed)
//   "ready-then-error"  replies ready (protocol 2), then fires onerror at
//                   once, before the host may have decided on arming
//   "post-throws"   postMessage throws (say, a DataCloneError)
//   {kind, delay}   any of the above, answered after `delay` ms
//
// A real pool worker blocks in Atomics.wait serving its slot, which cannot be
// done on the test's only thread; tests act as the worker between spawns with
// take()/finish() (protocol 2) or by posting {t:"exit"} (legacy workers).

import { finishWasiThreadPoolRun, takeWasiThreadPoolAssignment } from "../../lib/pool.browser.js";

export class MockWorker {
  static instances = [];
  static behaviours = [];
  static defaultBehaviour = "ready2";

  // Behaviours by construction index; the rest use `fallback`.
  static script(behaviours, fallback = "ready2") {
    MockWorker.instances = [];
    MockWorker.behaviours = behaviours;
    MockWorker.defaultBehaviour = fallback;
  }

  constructor(...args) {
    this.args = args;
    this.url = args[0];
    this.options = args[1];
    this.index = MockWorker.instances.length;
    this.posted = [];
    this.terminated = false;
    this.onmessage = null;
    this.onerror = null;
    this.probe = null;
    this.answered = false;
    this.failPost = false;
    const behaviour = MockWorker.behaviours[this.index] ?? MockWorker.defaultBehaviour;
    this.behaviour = typeof behaviour === "string" ? { kind: behaviour } : behaviour;
    if (this.behaviour.kind === "throw") throw new Error(`mock: cannot start worker ${this.index}`);
    if (this.behaviour.kind === "post-throws") this.failPost = true;
    MockWorker.instances.push(this);
  }

  postMessage(message) {
    if (this.failPost) throw new Error("mock: postMessage failed");
    this.posted.push(message);
    if (message?.t === "probe") {
      this.probe = message;
      this.later(() => this.answerProbe());
    }
  }

  terminate() {
    this.terminated = true;
  }

  later(fn) {
    setTimeout(fn, this.behaviour.delay ?? 0);
  }

  answerProbe() {
    // Whether this worker had answered (or failed) by some moment: lets a
    // test check an order of events instead of timing them.
    this.answered = true;
    switch (this.behaviour.kind) {
      case "ready2":
        return this.emit({ t: "ready", ok: true, protocol: 2 });
      case "ready1":
        return this.emit({ t: "ready", ok: true, protocol: 1 });
      case "ready":
        return this.emit({ t: "ready", ok: true });
      case "not-ready":
        return this.emit({ t: "ready", ok: false, error: "mock: instantiate failed" });
      case "error-before":
        return this.fail(new Error("mock: script failed to load"));
      case "error-after":
        this.emit({ t: "log", text: "mock: starting" });
        return this.fail(new Error("mock: crashed after speaking"));
      case "ready-then-error":
        this.emit({ t: "ready", ok: true, protocol: 2 });
        return this.fail(new Error("mock: crashed after ready"));
      case "silent":
      default:
        return undefined;
    }
  }

  // Delivers a message from the worker to the host, as a MessageEvent would.
  emit(data) {
    if (!this.terminated) this.onmessage?.({ data });
  }

  // Fires the worker's error event, as an ErrorEvent would, and returns the
  // event object.
  fail(error) {
    const event = { message: error.message, error, filename: String(this.url), lineno: 1 };
    if (!this.terminated) this.onerror?.(event);
    return event;
  }

  // Acting as a protocol-2 worker on its own slot.
  take() {
    return takeWasiThreadPoolAssignment(this.probe.pool, this.probe.slot);
  }

  finish() {
    finishWasiThreadPoolRun(this.probe.pool, this.probe.slot);
  }

  // The "run" messages a legacy worker was sent.
  runs() {
    return this.posted.filter((message) => message?.t === "run");
  }
}
