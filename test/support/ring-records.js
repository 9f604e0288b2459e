// The records test/support/ring-writer.js writes, of varied lengths.
export const ringRecord = (i) => `record ${i}${i % 7 === 0 ? " and some more bytes to vary the length" : ""}\n`;
