import { existsSync } from "node:fs";
import path from "node:path";

const repoRoot = path.resolve(import.meta.dirname, "../../..");

/** The shared real-world corpus beside the repository; absent in a user's clone. */
export const corpusDir = path.resolve(repoRoot, "../shared/corpus");
export const hasCorpus = existsSync(path.join(corpusDir, "manifests"));
export const fixturesDir = path.join(repoRoot, "test/fixtures");
