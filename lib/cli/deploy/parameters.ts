import { randomBytes } from "node:crypto";
import { GetParametersCommand, PutParameterCommand, type SSMClient } from "@aws-sdk/client-ssm";
import { awsErrorName } from "./aws";
import { fromAws } from "./errors";
import { PARAMETERS, type ParameterKey, type StageNames } from "./names";

/** What SSM holds for one of the stage's parameters (a SecureString's value is never read here). */
export interface ParameterState {
  type: string;
  version: number;
  /** Only for String parameters (ids and URLs, never secrets). */
  value?: string;
}

export type ParameterStates = Partial<Record<ParameterKey, ParameterState>>;

/** The stage's parameters as SSM has them: one GetParameters, not decrypted. */
export async function readParameters(ssm: SSMClient, names: StageNames): Promise<ParameterStates> {
  const keys = Object.keys(PARAMETERS) as ParameterKey[];
  const byName = new Map(keys.map((key) => [names.parameter(key), key]));
  try {
    const out = await ssm.send(
      new GetParametersCommand({ Names: [...byName.keys()], WithDecryption: false }),
    );
    const states: ParameterStates = {};
    for (const p of out.Parameters ?? []) {
      const key = p.Name === undefined ? undefined : byName.get(p.Name);
      if (key === undefined) continue;
      states[key] = {
        type: p.Type ?? "",
        version: p.Version ?? 0,
        ...(p.Type === "String" && p.Value !== undefined ? { value: p.Value } : {}),
      };
    }
    return states;
  } catch (error: unknown) {
    throw fromAws(error, "reading the stage's SSM parameters", names.region);
  }
}

/**
 * Writes one parameter with its catalogued type. Without `overwrite` a parameter that already
 * holds a value is left alone (`ParameterAlreadyExists`: a rerun, or another deploy first).
 * Answers whether it wrote.
 */
export async function writeParameter(
  ssm: SSMClient,
  names: StageNames,
  key: ParameterKey,
  value: string,
  overwrite = false,
): Promise<boolean> {
  try {
    await ssm.send(
      new PutParameterCommand({
        Name: names.parameter(key),
        Type: PARAMETERS[key].type,
        Value: value,
        Overwrite: overwrite,
        Description: `Statuspilot ${names.stage}: ${PARAMETERS[key].name} (statuspilot deploy)`,
      }),
    );
    return true;
  } catch (error: unknown) {
    if (!overwrite && awsErrorName(error) === "ParameterAlreadyExists") return false;
    throw fromAws(error, `writing ${names.parameter(key)}`, names.region);
  }
}

/** A new key for the front door (install states, sessions, CSRF): 48 random bytes. */
export const newWebKey = (): string => randomBytes(48).toString("base64");
