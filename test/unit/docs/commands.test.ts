import { readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolingCommands } from "#bench/tooling";
import { loadWorkspace, type RunningEmulator, startEmulator } from "#emulator/server";
import { routes } from "#functions/routes";
import { cliCommands } from "#lib/cli/main";
import {
  type CommandWorld,
  commandProblem,
  curlRequest,
  repoRoot,
  repoWorld,
  type ShellCommand,
  shellCommands,
} from "./shell-commands";

// "Every command it shows is run by a test or by CI": each shell command of the README and of
// docs/ is a package script, a statuspilot command its own parser takes (the table
// bin/statuspilot.mjs dispatches on), or a test file; each curl line is sent, here, to the
// service emulator it names, or names a route the API has.

const documents = [
  "README.md",
  ...readdirSync(`${repoRoot}/docs`)
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
const shown = documents.flatMap((file) => shellCommands(file));
const isCurl = (c: ShellCommand) => c.words[0] === "curl";
const named = (c: ShellCommand): [string, ShellCommand] => [
  `${c.file}:${c.line} ${c.words.join(" ")}`,
  c,
];
const world = repoWorld({ ...cliCommands, ...toolingCommands });

/** The port the docs give each local server (`npm start`'s defaults). */
const EMULATOR_PORT = "4010";
const HANDLERS_PORT = "3000";

let emulator: RunningEmulator;
beforeAll(async () => {
  const workspace = loadWorkspace(`${repoRoot}/emulator/demo-workspace.json`);
  emulator = await startEmulator({ workspace, port: 0 });
});
afterAll(() => emulator?.close());

/** Whether an API route (`/admin/users/{team}/{user}`) matches a path. */
const routeMatches = (template: string, pathname: string): boolean =>
  new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(pathname);

describe("the commands README.md and docs/ show", () => {
  it("include the two a newcomer runs first", () => {
    const readme = shellCommands("README.md").map((c) => c.words.join(" "));
    expect(readme).toEqual(expect.arrayContaining(["npm ci", "npm start", "npm test"]));
  });

  it.each(shown.filter((c) => !isCurl(c)).map(named))("%s: run by a test or CI", (_, command) => {
    expect(commandProblem(command.words, world)).toBeUndefined();
  });

  it.each(shown.filter(isCurl).map(named))("%s: answers as shown", async (_, command) => {
    // Arrange
    const request = curlRequest(command.words);
    expect(request.url.hostname).toBe("127.0.0.1");
    if (request.url.port === HANDLERS_PORT) {
      // The handlers need a whole stack: the route must be one the API serves.
      const served = routes.some(
        (r) => r.method === request.method && routeMatches(r.path, request.url.pathname),
      );
      expect(served, `${request.method} ${request.url.pathname}`).toBe(true);
      return;
    }
    expect(request.url.port).toBe(EMULATOR_PORT);
    // Act: sent to an emulator of the demo workspace, as `npm start` runs it
    const response = await fetch(new URL(request.url.pathname, emulator.url), {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
    });
    // Assess
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true });
  });
});

describe("the check of a shown command", () => {
  const problem = (line: string, w: CommandWorld = world) =>
    commandProblem(shellCommands("x.md", `\`\`\`sh\n${line}\n\`\`\``)[0]?.words ?? [], w);

  it("refuses an option the command does not take", () => {
    expect(problem("npx statuspilot status U001 --tema T0DEMO")).toMatch(/tema/);
    expect(problem("npm run bench -- --only herd --sedes 3")).toMatch(/sedes/);
    expect(problem("npx statuspilot start --port")).toMatch(/port/);
  });

  it("refuses a command that lacks what its usage requires", () => {
    expect(problem("npx statuspilot status")).toMatch(/positional/);
    expect(problem("npx statuspilot calendar expand a.ics --from 2026-01-01")).toMatch(/--to/);
    expect(problem("npx statuspilot deploy --region eu-west-1")).toMatch(/--stage/);
  });

  it("refuses what no script, command or test is", () => {
    expect(problem("npx statuspilot statsu U001")).toMatch(/no statuspilot command/);
    expect(problem("npm run lnit")).toMatch(/no script/);
    expect(problem("npm install")).toMatch(/not a package script/);
    expect(problem("npx vitest run test/e2e/nothing.test.ts")).toMatch(/no test file/);
    expect(problem("NO_SUCH_SETTING=1 npm test")).toMatch(/NO_SUCH_SETTING/);
    expect(problem("aws sns subscribe")).toMatch(/not a command/);
  });

  it("takes what the parsers take, --help included", () => {
    for (const line of [
      "npm ci && npm start",
      "npx statuspilot calendar timeline a.ics --from 2026-01-01 --to 2026-01-02",
      "node bin/statuspilot.mjs status U001 --team T0DEMO # a comment",
      "npx statuspilot deploy --help",
      "npm run soak -- --renewals",
    ]) {
      expect(problem(line), line).toBeUndefined();
    }
  });
});
