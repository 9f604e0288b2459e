// A writable stream that keeps what it is given: collector().text() is all of
// it, as UTF-8 text (the runner's stdout and stderr as a caller's streams).

import { Writable } from "node:stream";

export function collector() {
  const chunks = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  stream.text = () => Buffer.concat(chunks).toString();
  return stream;
}
