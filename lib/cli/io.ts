/** What a CLI command writes to; tests pass buffers, the binary passes the process streams. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(text.endsWith("\n") ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith("\n") ? text : `${text}\n`),
};

export type Command = (args: string[], io: CliIo) => Promise<number>;

/** Exit code for input that cannot be read or parsed. */
export const EXIT_UNREADABLE = 2;
