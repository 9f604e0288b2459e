import { getWasiThreadPoolImplementation } from "wasi-thread-pool";

const { implementation, reason, native } = getWasiThreadPoolImplementation();
console.log(`${implementation}: ${reason}`);
if (!native.available) console.log(`the addon: ${native.error}`);
