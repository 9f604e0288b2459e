// wtp-redirect.mjs
import { register } from "node:module";
register("./wtp-redirect-hooks.mjs", import.meta.url);
