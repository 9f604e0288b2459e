// An extraImports factory module for the tests: { moduleUrl } entries import
// it inside each worker. Provides extra.value() = config.value, and records
// the factory context it was given so that tests can check it.

export const calls = [];

export default function extraFactory(ctx) {
  calls.push({
    workerIndex: ctx.workerIndex,
    tid: ctx.tid,
    config: ctx.config,
    hasMemory: ctx.memory instanceof WebAssembly.Memory,
    getMemory: typeof ctx.getMemory,
  });
  return {
    imports: { extra: { value: () => ctx.config?.value ?? 0 } },
    close: () => {
      calls.push({ closed: true });
    },
  };
}

export function named(ctx) {
  return { extra: { value: () => 100 + (ctx.config?.value ?? 0) } };
}
