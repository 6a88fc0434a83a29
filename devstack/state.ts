import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as z from "zod";

/**
 * What a local stack keeps between runs, beside DynamoDB's own files: the secrets it
 * generated (so tokens encrypted under the key still decrypt and hook URLs keep working) and
 * the channel id of each source's generic hook.
 */
const savedState = z
  .object({
    version: z.literal(1),
    tokenKey: z.string().min(1),
    adminApiKey: z.string().min(1),
    /**
     * The front door's key (session cookies, CSRF tokens, install state): kept so a restart
     * does not sign everyone out. Optional, as state files from before the front door lack it.
     */
    webKey: z.string().min(32).optional(),
    /** Generic hook channel ids by `${team}/${user}/${sourceId}`. */
    channels: z.record(z.string(), z.string()),
  })
  .strict();

export type SavedState = z.infer<typeof savedState>;

export class StateDirError extends Error {
  constructor(
    message: string,
    readonly pointer: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "StateDirError";
  }
}

export interface StateDir {
  /** dynalite's LevelDB directory. */
  dynamoPath: string;
  /** The service emulator's workspace state (profiles, issued tokens, manifests). */
  emulatorPath: string;
  state: SavedState;
  /** Writes the state file (call after a change, e.g. a new channel id). */
  save(): void;
}

const STATE_FILE = "state.json";
const EMULATOR_FILE = "emulator.json";

/**
 * Writes a file whole or not at all: a temporary file beside it, then a rename, so a process
 * killed mid-write leaves the previous version, never half of one.
 */
export function writeFileAtomically(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  renameSync(temporary, file);
}

/** 32 random bytes as 43 base64url characters (the front door wants 32+). */
export const newWebKey = (): string => randomBytes(32).toString("base64url");

/**
 * Opens (or creates) the stack's state directory. `fresh` empties it first, so the stack
 * starts with no data and new secrets.
 */
export function openStateDir(dir: string, options: { fresh?: boolean } = {}): StateDir {
  if (options.fresh) rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, STATE_FILE);
  let state: SavedState;
  if (existsSync(file)) {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(file, "utf8"));
    } catch (error: unknown) {
      throw new StateDirError(`${file} is not JSON; start with --fresh to reset it`, "/", {
        cause: error,
      });
    }
    const parsed = savedState.safeParse(json);
    if (!parsed.success) {
      throw new StateDirError(
        `${file} is not a state this version understands; start with --fresh to reset it`,
        `/${parsed.error.issues[0]?.path.join("/") ?? ""}`,
      );
    }
    state = parsed.data;
    state.webKey ??= newWebKey();
  } else {
    state = {
      version: 1,
      tokenKey: randomBytes(32).toString("base64"),
      adminApiKey: randomBytes(16).toString("hex"),
      webKey: newWebKey(),
      channels: {},
    };
  }
  const save = () => writeFileAtomically(file, `${JSON.stringify(state, null, 2)}\n`);
  save();
  return {
    dynamoPath: path.join(dir, "dynamo"),
    emulatorPath: path.join(dir, EMULATOR_FILE),
    state,
    save,
  };
}
