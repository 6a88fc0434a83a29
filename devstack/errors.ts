/** Errors of the local stack. */
export type LocalStackErrorCode = "port_in_use" | "bad_config" | "not_ready" | "handler_missing";

export class LocalStackError extends Error {
  constructor(
    message: string,
    readonly code: LocalStackErrorCode,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "LocalStackError";
  }
}

export class PortInUseError extends LocalStackError {
  constructor(
    readonly port: number,
    what: string,
    options?: { cause?: unknown },
  ) {
    super(
      `port ${port} (${what}) is already in use; pick another with the matching --*port flag`,
      "port_in_use",
      options,
    );
    this.name = "PortInUseError";
  }
}

export class ConfigError extends LocalStackError {
  constructor(
    message: string,
    readonly pointer: string,
    options?: { cause?: unknown },
  ) {
    super(message, "bad_config", options);
    this.name = "ConfigError";
  }
}

const isErrnoException = (e: unknown): e is NodeJS.ErrnoException =>
  e instanceof Error && typeof (e as NodeJS.ErrnoException).code === "string";

export const isAddressInUse = (e: unknown): boolean =>
  isErrnoException(e) && e.code === "EADDRINUSE";
