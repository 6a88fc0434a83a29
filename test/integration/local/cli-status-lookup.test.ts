import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliIo } from "#lib/cli/io";
import { run as status } from "#lib/cli/status";
import { ManualClock } from "#lib/core/clock";
import { renderIcs } from "#lib/local/demo-feed";
import { type IcsServer, startIcsServer } from "#lib/local/ics-server";
import { type LocalStack, startStack } from "#lib/local/stack";
import { demoStackOptions } from "../../support/demo-stack";

const T0 = Date.parse("2025-03-10T10:59:00.000Z");

const bufferIo = () => {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t) };
  return { io, out, err };
};

/** Installs through the web as `user`: /install, the service's consent, the callback. */
async function installAs(stack: LocalStack, user: string): Promise<number> {
  const install = await fetch(stack.installUrl ?? "", { redirect: "manual" });
  const cookie = install.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const consent = await fetch(`${install.headers.get("location")}&as=${user}`, {
    redirect: "manual",
  });
  const landed = await fetch(consent.headers.get("location") ?? "", {
    redirect: "manual",
    headers: { cookie },
  });
  return landed.status;
}

describe("statuspilot status finds a user by id, however they came in (issue 28)", () => {
  let stack: LocalStack;
  let ics: IcsServer;
  const ask = async (...args: string[]) => {
    const { io, out, err } = bufferIo();
    const code = await status([...args, "--port", String(stack.port)], io);
    return { code, out, err };
  };

  beforeAll(async () => {
    // Prepare: U001 configured at start in the demo team and in a second team; U002 not at all.
    const clock = new ManualClock(T0);
    ics = await startIcsServer({ clock, feeds: { "/U001.ics": renderIcs([], T0) } });
    const options = demoStackOptions(ics.feedUrl("/U001.ics"), clock);
    const [demo] = options.users;
    if (!demo) throw new Error("the demo stack has no user");
    stack = await startStack({
      ...options,
      users: [demo, { ...demo, team: "T0OTHER", token: "xoxp-other-U001" }],
    });
  });
  afterAll(async () => {
    await stack?.close();
    await ics?.close();
  });

  it("shows a person who installed through the web, without --team", async () => {
    // Prepare
    expect(await installAs(stack, "U002")).toBe(302);
    // Act
    const { code, out, err } = await ask("U002");
    // Assess
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(out[0]).toMatch(/^U002 \(T0DEMO\) at /);
  });

  it("asks for --team when the id is in more than one team, and names the teams", async () => {
    // Act
    const ambiguous = await ask("U001");
    const chosen = await ask("U001", "--team", "T0OTHER");
    // Assess
    expect(ambiguous.code).toBe(64);
    expect(ambiguous.out).toEqual([]);
    expect(ambiguous.err).toEqual(["user U001 is in teams T0DEMO, T0OTHER: name one with --team"]);
    expect(chosen.code).toBe(0);
    expect(chosen.out[0]).toMatch(/^U001 \(T0OTHER\) at /);
  });

  it("still says which user it does not know", async () => {
    // Act
    const { code, err } = await ask("U999");
    // Assess
    expect(code).toBe(1);
    expect(err).toEqual(["no user U999 in this stack"]);
  });
});
