/** Every line written to stdout, stderr or the console while capturing. */
export interface LogCapture {
  readonly lines: string[];
  /** Lines written since `mark` (an index into `lines`). */
  since(mark: number): string[];
  stop(): void;
}

type Write = typeof process.stdout.write;
const CONSOLE_METHODS = ["log", "info", "warn", "error", "debug", "trace"] as const;

/**
 * Intercepts the streams the Powertools logger writes to (its own Console over
 * process.stdout/stderr) and the global console, without passing anything through, so the
 * fuzz runs stay quiet and every line can be searched for secrets.
 */
export function startLogCapture(): LogCapture {
  const lines: string[] = [];
  const record = (chunk: unknown) => {
    const text =
      typeof chunk === "string"
        ? chunk
        : chunk instanceof Uint8Array
          ? Buffer.from(chunk).toString("utf8")
          : String(chunk);
    for (const line of text.split("\n")) if (line !== "") lines.push(line);
  };
  const streams = [process.stdout, process.stderr];
  const writes = streams.map((s) => s.write);
  for (const stream of streams) {
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      record(chunk);
      const done = rest.find((r): r is () => void => typeof r === "function");
      done?.();
      return true;
    }) as Write;
  }
  const saved = CONSOLE_METHODS.map((m) => console[m]);
  for (const m of CONSOLE_METHODS) {
    console[m] = (...args: unknown[]) => record(args.map(String).join(" "));
  }
  return {
    lines,
    since: (mark) => lines.slice(mark),
    stop: () => {
      streams.forEach((stream, i) => {
        const original = writes[i];
        if (original) stream.write = original;
      });
      CONSOLE_METHODS.forEach((m, i) => {
        const original = saved[i];
        if (original) console[m] = original;
      });
    },
  };
}
