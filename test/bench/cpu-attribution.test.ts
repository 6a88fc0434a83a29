import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { type CpuProfile, splitCpu } from "#bench/support/cpu-attribution";

const root = "/repo";
const file = (p: string) => pathToFileURL(`${root}/${p}`).href;
const code = {
  files: new Set(["lib/app/status/reconcile.ts"]),
  packages: new Set(["zod", "@aws-sdk/client-dynamodb"]),
};

/** A profile of one chain per sample kind: each leaf is sampled `ms` milliseconds. */
function profileOf(chains: Array<{ frames: string[]; ms: number; fn?: string }>): CpuProfile {
  const nodes: CpuProfile["nodes"] = [{ id: 1, callFrame: { url: "", functionName: "(root)" } }];
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  for (const chain of chains) {
    let parent = nodes[0] as CpuProfile["nodes"][number];
    for (const [i, url] of chain.frames.entries()) {
      const id = nodes.length + 1;
      const last = i === chain.frames.length - 1;
      const node = { id, callFrame: { url, functionName: last ? (chain.fn ?? "f") : "f" } };
      nodes.push(node);
      parent.children = [...(parent.children ?? []), id];
      parent = node;
    }
    samples.push(parent.id);
    timeDeltas.push(chain.ms * 1000);
  }
  return { nodes, samples, timeDeltas };
}

describe("splitting a bench process's CPU between a function and everything else", () => {
  it("attributes each sample to the nearest code that is the function's or not, and leaves the rest unattributed", () => {
    // Prepare
    const profile = profileOf([
      // The function's own code, and a package it calls.
      { frames: [file("lib/app/status/reconcile.ts")], ms: 10 },
      {
        frames: [file("lib/app/status/reconcile.ts"), file("node_modules/zod/v4/core/parse.js")],
        ms: 5,
      },
      // The emulator and dynalite, one of them through zod (a package both use).
      { frames: [file("emulator/server.ts"), file("node_modules/zod/v4/core/parse.js")], ms: 7 },
      { frames: [file("node_modules/dynalite/db/index.js")], ms: 20 },
      // Node's HTTP server: dynalite's and the emulator's requests.
      { frames: ["node:_http_server", "node:events"], ms: 4 },
      // The SDK from a socket callback: only the function calls it.
      { frames: ["node:net", file("node_modules/@aws-sdk/client-dynamodb/dist-es/x.js")], ms: 3 },
      // zod from a callback: the emulator calls zod too, so it is nobody's.
      { frames: ["node:net", file("node_modules/zod/v4/core/parse.js")], ms: 2 },
      { frames: ["(garbage collector)"], ms: 9 },
      { frames: ["(idle)"], ms: 100, fn: "(idle)" },
    ]);
    // Act
    const split = splitCpu(profile, code, root);
    // Assess: the function's 10 + 5 + 3; elsewhere 7 + 20 + 4; unattributed 2 + 9; idle left out
    expect(split.functionMs).toBeCloseTo(18);
    expect(split.elsewhereMs).toBeCloseTo(31);
    expect(split.unattributedMs).toBeCloseTo(11);
    expect(split.functionShare).toBeCloseTo(18 / 49);
  });
});
