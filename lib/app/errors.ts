/** Errors of the use cases. Each carries a `code`; input errors also name the bad field. */
export class AppError extends Error {
  override name = "AppError";
  constructor(
    message: string,
    readonly code: "invalid_input" | "unknown_user" | "unknown_entry",
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Input that breaks a rule; `pointer` is the JSON pointer of the offending field. */
export class InvalidInputError extends AppError {
  override name = "InvalidInputError";
  constructor(
    message: string,
    readonly pointer: string,
    options?: { cause?: unknown },
  ) {
    super(message, "invalid_input", options);
  }
}

export class UnknownUserError extends AppError {
  override name = "UnknownUserError";
  constructor(
    readonly team: string,
    readonly user: string,
  ) {
    super(`no user ${user} in team ${team}`, "unknown_user");
  }
}
