import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Where the files that run the whole stack through simulated hours or days live. */
const LONG_RUNNING = ["test/bench/", "test/soak/", "test/e2e/"];

/**
 * vitest's order (failed first, then by the durations kept from the last run, or else the
 * largest files first), with the whole-stack simulations ahead of everything else: they are
 * small files that run longest, so in a fresh clone (CI) vitest would start them last, and the
 * run would end on one of them while the other workers idle.
 */
export class LongRunsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const long = (spec: TestSpecification) => {
      const file = path.relative(root, spec.moduleId).split(path.sep).join("/");
      return LONG_RUNNING.some((dir) => file.startsWith(dir));
    };
    const sorted = await super.sort(files);
    return [...sorted.filter(long), ...sorted.filter((spec) => !long(spec))];
  }
}
