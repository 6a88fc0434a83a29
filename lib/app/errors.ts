import { CodedError } from "#lib/core/coded-error";

/** Errors of the use cases. Each carries a `code`; input errors also name the bad field. */
export class AppError extends CodedError<"invalid_input" | "unknown_user" | "unknown_entry"> {
  override name = "AppError";
}

/** One broken rule of an input: the JSON pointer of the field, and why. */
export interface InputProblem {
  pointer: string;
  message: string;
}

/**
 * Input that breaks a rule; `pointer` is the JSON pointer of the offending field (the first,
 * when several are), `problems` every broken rule, so a form can mark each field.
 */
export class InvalidInputError extends AppError {
  override name = "InvalidInputError";
  readonly problems: readonly InputProblem[];
  constructor(
    message: string,
    readonly pointer: string,
    options?: { cause?: unknown; problems?: readonly InputProblem[] },
  ) {
    super(message, "invalid_input", options);
    this.problems = options?.problems ?? [{ pointer, message }];
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
