// A browser program's stdio on the page: stdin from bytes, a string or a
// ReadableStream, read only as the program asks; stdout and stderr to a
// callback (a copy of each write's bytes) or a WritableStream (each write
// awaited before the program's write returns, so nothing is lost and a slow
// stream slows the program), or by default to the console, line by line.
// Browser-safe, no import.

const encoder = new TextEncoder();

function toBytes(chunk) {
  if (typeof chunk === "string") return encoder.encode(chunk);
  if (chunk instanceof Uint8Array) return chunk;
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  throw new TypeError("options.stdin's stream gave a chunk that is neither bytes nor a string.");
}

export function checkStdin(stdin) {
  if (stdin === undefined || stdin === null) return;
  if (typeof stdin === "string" || stdin instanceof ArrayBuffer || ArrayBuffer.isView(stdin)) return;
  if (typeof ReadableStream === "function" && stdin instanceof ReadableStream) return;
  throw new TypeError("options.stdin must be a Uint8Array, an ArrayBuffer, a string or a ReadableStream.");
}

export function checkOutput(output, name) {
  if (output === undefined || output === null || typeof output === "function") return;
  if (typeof WritableStream === "function" && output instanceof WritableStream) return;
  throw new TypeError(`options.${name} must be a function (called with each write's bytes) or a WritableStream.`);
}

// {read(max) -> Uint8Array | Promise<Uint8Array> (empty at the end),
//  ready() -> boolean (a read would not wait), whenReady() -> Promise,
//  close()}
export function createStdin(stdin) {
  const pending = [];
  let ended = true;
  let reader = null;
  // The one read of the stream under way, shared by every waiter.
  let filling = null;
  if (stdin !== undefined && stdin !== null) {
    if (typeof ReadableStream === "function" && stdin instanceof ReadableStream) {
      reader = stdin.getReader();
      ended = false;
    } else {
      const bytes = toBytes(stdin);
      if (bytes.length > 0) pending.push(bytes.slice());
    }
  }
  function take(max) {
    const chunk = pending[0];
    const n = Math.min(max, chunk.length);
    if (n === chunk.length) pending.shift();
    else pending[0] = chunk.subarray(n);
    return chunk.subarray(0, n);
  }
  const ready = () => pending.length > 0 || ended;
  function fill() {
    filling ??= reader.read().then(
      ({ value, done }) => {
        filling = null;
        if (done) ended = true;
        else if (value !== undefined) {
          const bytes = toBytes(value);
          if (bytes.length > 0) pending.push(bytes);
        }
      },
      () => {
        filling = null;
        ended = true; // a failed or released stream ends the input
      },
    );
    return filling;
  }
  async function whenReady() {
    while (!ready()) await fill();
  }
  return {
    ready,
    whenReady,
    read(max) {
      if (pending.length > 0) return take(max);
      if (ended) return new Uint8Array(0);
      return whenReady().then(() => (pending.length > 0 ? take(max) : new Uint8Array(0)));
    },
    // The stream stays the page's: its lock is released (a read still
    // waiting is rejected, and forgotten).
    close() {
      if (reader === null) return;
      try {
        reader.releaseLock();
      } catch {
        // Released already, or a read is pending in an older engine: nothing more to do.
      }
      reader = null;
    },
  };
}

function consoleSink(fd) {
  const log = fd === 2 ? console.error.bind(console) : console.log.bind(console);
  const decoder = new TextDecoder();
  let partial = "";
  return {
    write(bytes) {
      partial += decoder.decode(bytes, { stream: true });
      const lines = partial.split("\n");
      partial = lines.pop();
      for (const line of lines) log(line);
    },
    async close() {
      partial += decoder.decode();
      if (partial) log(partial);
    },
  };
}

// {write(bytes) -> void | Promise, close() -> Promise} for fd 1 or 2.
export function createOutput(output, fd) {
  if (typeof output === "function") return { write: (bytes) => void output(bytes), close: async () => {} };
  if (output && typeof output.getWriter === "function") {
    const writer = output.getWriter();
    let last = Promise.resolve();
    return {
      write(bytes) {
        last = writer.write(bytes);
        return last;
      },
      // Written, and the lock released: the stream stays the page's.
      async close() {
        await last.catch(() => {});
        writer.releaseLock();
      },
    };
  }
  return consoleSink(fd);
}
