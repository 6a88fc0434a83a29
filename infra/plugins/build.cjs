"use strict";
/**
 * Local osls plugin: bundles the functions (infra/build.ts) before osls packages them, so
 * `npx osls package` and `npx osls deploy [function -f name]` work on a fresh clone, offline.
 * It also checks infra/resources/table.json: osls has already read that file by the time this
 * hook runs, so a stale copy is regenerated and the command stops, asking for a re-run.
 */
const path = require("node:path");
const { readFile } = require("node:fs/promises");
const { pathToFileURL } = require("node:url");

class StatuspilotBuild {
  constructor(serverless, _options, utils) {
    this.serverless = serverless;
    this.log = utils?.log ?? console;
    const build = () => this.build();
    this.hooks = {
      "before:package:createDeploymentArtifacts": build,
      "before:deploy:function:packageFunction": build,
    };
  }

  async build() {
    const root = this.serverless.serviceDir ?? process.cwd();
    // infra/build.ts is TypeScript; tsx (a dependency) loads it as the CLI does.
    const { tsImport } = await import("tsx/esm/api");
    const build = await tsImport(pathToFileURL(path.join(root, "infra/build.ts")).href, __filename);
    const tableFile = path.join(root, "infra/resources/table.json");
    const committed = await readFile(tableFile, "utf8").catch(() => "");
    if (committed !== build.renderTableJson()) {
      await build.writeTableResource(root);
      throw new Error(
        "infra/resources/table.json was stale and has been regenerated from lib/store/table.ts; run the command again",
      );
    }
    const reports = await build.buildBundles(root);
    this.log.notice?.(`Bundled ${reports.length} functions:\n${build.formatReports(reports)}`);
  }
}

module.exports = StatuspilotBuild;
