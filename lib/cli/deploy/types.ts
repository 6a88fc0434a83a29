import type { CliIo } from "../io";
import type { AwsClients } from "./aws";
import type { StageNames } from "./names";
import type { OslsRunner } from "./osls";
import type { ServiceApp } from "./service-app";

export interface DeployOptions {
  stage: string | undefined;
  region: string | undefined;
  serviceUrl?: string | undefined;
  appId?: string | undefined;
  domain?: string | undefined;
  certificateArn?: string | undefined;
  rotate: string[];
  manifestFile: string;
  allowDowngrade: boolean;
}

export interface DeployDeps {
  aws: AwsClients;
  osls: OslsRunner;
  service(baseUrl: string): ServiceApp;
  io: CliIo;
  env: Record<string, string | undefined>;
  sleep(ms: number): Promise<void>;
  /** The seal migration over the stage's table (lib/cli/migrate-seals.ts's, with these clients). */
  migrateSeals(names: StageNames): Promise<{ legacyLeft: number; summary: string }>;
}

/** What a deploy ends with: the address, for the install link and the doctor. */
export interface Deployed {
  names: StageNames;
  publicUrl: string;
  appId: string;
}
