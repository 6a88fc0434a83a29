import { Session } from "node:inspector/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Which part of a single-process bench's CPU a Lambda function would spend itself. The herd runs
 * every handler, dynalite and the chat service's emulator in one Node process; on AWS only the
 * handler's code runs on the Lambda. A V8 CPU profile of the run tells them apart by the code
 * each sample was in.
 */

/** The slice of a V8 CPU profile (the inspector's `Profiler.stop`) read here. */
export interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { url: string; functionName: string };
    children?: number[];
  }>;
  samples?: number[];
  timeDeltas?: number[];
}

/** What the function's bundle holds: its project files and its npm packages. */
export interface FunctionCode {
  /** Paths from the repository root, e.g. "lib/app/status/reconcile.ts". */
  files: ReadonlySet<string>;
  /** npm package names, e.g. "@aws-sdk/client-dynamodb". */
  packages: ReadonlySet<string>;
}

/** Where one frame's code belongs. */
export type FrameOwner = "function" | "elsewhere" | "shared";

export interface CpuSplit {
  /** Sampled ms in the function's own code, in code it does not carry, and in neither. */
  functionMs: number;
  elsewhereMs: number;
  unattributedMs: number;
  /** The function's share of the attributed time (0..1); the unattributed is split alike. */
  functionShare: number;
}

const packageOf = (file: string): string | undefined =>
  /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file.replaceAll("\\", "/"))?.[1];

/**
 * A frame's owner. Node's own code (but its HTTP server) and the packages the function carries
 * are `shared` (a package like zod runs for the emulator too): they take the owner of the
 * nearest caller that has one. Project files are the function's when its bundle holds them; any other project file
 * (the emulator, the bench, the local stack) and any package it does not carry (dynalite and
 * its storage) are `elsewhere`.
 */
export function frameOwner(url: string, code: FunctionCode, root: string): FrameOwner {
  // A Lambda function serves no HTTP: Node's server side here parses dynalite's and the
  // emulator's requests.
  if (url === "node:_http_server") return "elsewhere";
  if (!url.startsWith("file:")) return "shared";
  const file = fileURLToPath(url);
  const pkg = packageOf(file);
  if (pkg !== undefined) return code.packages.has(pkg) ? "shared" : "elsewhere";
  const relative = path.relative(root, file).replaceAll("\\", "/");
  return code.files.has(relative) ? "function" : "elsewhere";
}

/**
 * Splits a profile's sampled time by the owner of each sample's innermost frame that has one
 * (see `frameOwner`); a sample with none whose innermost package is one only the function's
 * code calls in this profile is the function's. The rest (the garbage collector, Node's
 * internals on their own) is unattributed; idle time is left out.
 */
export function splitCpu(profile: CpuProfile, code: FunctionCode, root: string): CpuSplit {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const ownerCache = new Map<number, FrameOwner | undefined>();
  const ownerOf = (id: number): FrameOwner | undefined => {
    if (ownerCache.has(id)) return ownerCache.get(id);
    const node = byId.get(id);
    let owner: FrameOwner | undefined;
    if (node !== undefined) {
      const own = frameOwner(node.callFrame.url, code, root);
      const parent = parentOf.get(id);
      owner = own !== "shared" ? own : parent === undefined ? undefined : ownerOf(parent);
    }
    ownerCache.set(id, owner);
    return owner;
  };
  // A package the function carries runs for it alone unless the profile shows other code calling
  // it: code it runs from a callback of Node's (a response read off a socket) is the function's.
  const packageOfNode = (id: number): string | undefined => {
    const url = byId.get(id)?.callFrame.url ?? "";
    const pkg = url.startsWith("file:") ? packageOf(fileURLToPath(url)) : undefined;
    return pkg !== undefined && code.packages.has(pkg) ? pkg : undefined;
  };
  const usedElsewhere = new Set<string>();
  for (const n of profile.nodes) {
    const pkg = packageOfNode(n.id);
    if (pkg !== undefined && ownerOf(n.id) === "elsewhere") usedElsewhere.add(pkg);
  }
  const settledOwnerOf = (id: number): FrameOwner | undefined => {
    const owner = ownerOf(id);
    if (owner !== undefined) return owner;
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const pkg = packageOfNode(at);
      if (pkg !== undefined) return usedElsewhere.has(pkg) ? undefined : "function";
    }
    return undefined;
  };
  let functionMs = 0;
  let elsewhereMs = 0;
  let unattributedMs = 0;
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (const [i, id] of samples.entries()) {
    const ms = (deltas[i] ?? 0) / 1000;
    if (byId.get(id)?.callFrame.functionName === "(idle)") continue;
    const owner = settledOwnerOf(id);
    if (owner === "function") functionMs += ms;
    else if (owner === "elsewhere") elsewhereMs += ms;
    else unattributedMs += ms;
  }
  const attributed = functionMs + elsewhereMs;
  return {
    functionMs,
    elsewhereMs,
    unattributedMs,
    functionShare: attributed === 0 ? 1 : functionMs / attributed,
  };
}

/** Samples this process's CPU while `run` runs (V8's profiler, a sample a millisecond). */
export async function profiled<T>(
  run: () => Promise<T>,
): Promise<{ result: T; profile: CpuProfile }> {
  const session = new Session();
  session.connect();
  try {
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 1000 });
    await session.post("Profiler.start");
    const result = await run();
    const { profile } = await session.post("Profiler.stop");
    return { result, profile: profile as CpuProfile };
  } finally {
    session.disconnect();
  }
}
