#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx, so a fresh clone needs no build step.
import { register } from "tsx/esm/api";

// Node 20 is supported here (Lambda runs nodejs22.x); the SDK's notice about its 2027 releases is noise.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
register();
const { main } = await import("../lib/cli/main.ts");
const { processIo } = await import("../lib/cli/io.ts");
// The benchmarks and the soak sit above the CLI (they drive the whole stack): handed in here.
const { toolingCommands } = await import("../bench/tooling.ts");
process.exitCode = await main(process.argv.slice(2), processIo, toolingCommands);
