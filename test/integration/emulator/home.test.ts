import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadWorkspace, startEmulator } from "#emulator/server";
import { ManualClock } from "#lib/core/clock";
import { repoRoot } from "../service/harness";
import {
  actions,
  BOT,
  BOT_UNSCOPED,
  button,
  call,
  closeAll,
  home,
  type Json,
  PERSON,
  section,
  startHome,
  state,
  T0S,
} from "./home-harness";

// views.publish and chat.postMessage over HTTP. Expected shapes, codes and limits are the
// platform's public reference (views.publish, chat.postMessage, Block Kit blocks, elements and
// composition objects, rate limits), restated here, not read from the emulator's code.

afterEach(closeAll);

const messagesOf = (body: Json): string[] =>
  ((body.response_metadata as { messages?: string[] } | undefined)?.messages ?? []) as string[];

const text = (n: number) => "x".repeat(n);

/**
 * One documented limit: a view whose checked member holds `n` (characters or items), and the
 * pointer the refusal names. `limit` passes, `limit + 1` is refused.
 */
interface LimitCase {
  what: string;
  limit: number;
  view: (n: number) => Json;
  pointer: string;
}

const many = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

const HOME_LIMITS: LimitCase[] = [
  {
    what: "blocks in a Home tab",
    limit: 100,
    view: (n) => home(many(n, () => ({ type: "divider" }))),
    pointer: "/view/blocks",
  },
  {
    what: "section text",
    limit: 3000,
    view: (n) => home([section(text(n))]),
    pointer: "/view/blocks/0/text/text",
  },
  {
    what: "section fields",
    limit: 10,
    view: (n) =>
      home([{ type: "section", fields: many(n, () => ({ type: "plain_text", text: "f" })) }]),
    pointer: "/view/blocks/0/fields",
  },
  {
    what: "section field text",
    limit: 2000,
    view: (n) => home([{ type: "section", fields: [{ type: "mrkdwn", text: text(n) }] }]),
    pointer: "/view/blocks/0/fields/0/text",
  },
  {
    what: "header text",
    limit: 150,
    view: (n) => home([{ type: "header", text: { type: "plain_text", text: text(n) } }]),
    pointer: "/view/blocks/0/text/text",
  },
  {
    what: "button text",
    limit: 75,
    view: (n) => home([actions([{ ...button("b"), text: { type: "plain_text", text: text(n) } }])]),
    pointer: "/view/blocks/0/elements/0/text/text",
  },
  {
    what: "action_id",
    limit: 255,
    view: (n) => home([actions([{ ...button("b"), action_id: text(n) }])]),
    pointer: "/view/blocks/0/elements/0/action_id",
  },
  {
    what: "button value",
    limit: 2000,
    view: (n) => home([actions([button("b", text(n))])]),
    pointer: "/view/blocks/0/elements/0/value",
  },
  {
    what: "button url",
    limit: 3000,
    view: (n) =>
      home([actions([button("b", undefined, { url: `https://x.example/${text(n - 18)}` })])]),
    pointer: "/view/blocks/0/elements/0/url",
  },
  {
    what: "block_id",
    limit: 255,
    view: (n) => home([section("s", { block_id: text(n) })]),
    pointer: "/view/blocks/0/block_id",
  },
  {
    what: "elements of an actions block",
    limit: 25,
    view: (n) => home([actions(many(n, (i) => button(`b${i}`)))]),
    pointer: "/view/blocks/0/elements",
  },
  {
    what: "elements of a context block",
    limit: 10,
    view: (n) =>
      home([{ type: "context", elements: many(n, () => ({ type: "mrkdwn", text: "c" })) }]),
    pointer: "/view/blocks/0/elements",
  },
  {
    what: "image alt_text",
    limit: 2000,
    view: (n) => home([{ type: "image", image_url: "https://x.example/a.png", alt_text: text(n) }]),
    pointer: "/view/blocks/0/alt_text",
  },
  {
    what: "private_metadata",
    limit: 3000,
    view: (n) => home([], { private_metadata: text(n) }),
    pointer: "/view/private_metadata",
  },
  {
    what: "callback_id",
    limit: 255,
    view: (n) => home([], { callback_id: text(n) }),
    pointer: "/view/callback_id",
  },
];

describe("views.publish", () => {
  it("publishes a home view, answers it as stored, and shows it as sent in the state", async () => {
    // Prepare
    const { emu } = await startHome();
    const sent = home(
      [section("Hello", { block_id: "greeting" }), actions([button("sync_now", "all")])],
      {
        private_metadata: "m",
      },
    );
    // Act
    const answer = await call(emu, "views.publish", { user_id: PERSON, view: sent }, BOT);
    const seen = await state(emu);
    // Assess
    expect(answer.status).toBe(200);
    const view = answer.body.view as Json;
    expect(answer.body.ok).toBe(true);
    expect(view).toMatchObject({
      id: expect.stringMatching(/^V[A-Z0-9]+$/),
      team_id: "T0CONF",
      type: "home",
      private_metadata: "m",
      callback_id: "",
      state: { values: {} },
      hash: expect.stringMatching(new RegExp(`^${T0S}\\.`)),
      app_id: "A0MAIN",
      bot_id: expect.stringMatching(/^B/),
      root_view_id: view.id,
    });
    const blocks = view.blocks as Json[];
    expect(blocks[0]?.block_id).toBe("greeting");
    // "If not specified, a block_id will be generated."
    expect(typeof blocks[1]?.block_id).toBe("string");
    expect(blocks[1]?.elements).toEqual([button("sync_now", "all")]);
    expect((seen.home_views as Json)[PERSON]).toEqual(sent);
  });

  it("keeps the view's id across publishes; a stale hash is hash_conflict, the current one is accepted", async () => {
    // Prepare
    const { emu } = await startHome();
    const first = await call(
      emu,
      "views.publish",
      { user_id: PERSON, view: home([section("one")]) },
      BOT,
    );
    const firstView = first.body.view as Json;
    // Act
    const second = await call(
      emu,
      "views.publish",
      { user_id: PERSON, view: home([section("two")]), hash: firstView.hash },
      BOT,
    );
    const stale = await call(
      emu,
      "views.publish",
      { user_id: PERSON, view: home([section("three")]), hash: firstView.hash },
      BOT,
    );
    // Assess
    const secondView = second.body.view as Json;
    expect(second.body.ok).toBe(true);
    expect(secondView.id).toBe(firstView.id);
    expect(secondView.hash).not.toBe(firstView.hash);
    expect(stale.body).toEqual({ ok: false, error: "hash_conflict" });
    expect(((await state(emu)).home_views as Json)[PERSON]).toEqual(home([section("two")]));
  });

  it("accepts a view as a form's JSON text too", async () => {
    const { emu } = await startHome();
    const answer = await call(
      emu,
      "views.publish",
      { user_id: PERSON, view: home([section("form")]) },
      BOT,
      "form",
    );
    expect(answer.body.ok).toBe(true);
  });

  for (const c of HOME_LIMITS) {
    it(`allows ${c.limit} for ${c.what} and refuses ${c.limit + 1}, naming ${c.pointer}`, async () => {
      // Prepare
      const { emu } = await startHome();
      // Act
      const atLimit = await call(
        emu,
        "views.publish",
        { user_id: PERSON, view: c.view(c.limit) },
        BOT,
      );
      const over = await call(
        emu,
        "views.publish",
        { user_id: PERSON, view: c.view(c.limit + 1) },
        BOT,
      );
      // Assess
      expect(atLimit.body.ok).toBe(true);
      expect(over.body).toMatchObject({ ok: false, error: "invalid_arguments" });
      const messages = messagesOf(over.body);
      expect(messages).toHaveLength(1);
      expect(messages[0]).toMatch(new RegExp(`^\\[ERROR\\] .+ \\[json-pointer:${c.pointer}\\]$`));
    });
  }

  it("refuses what Block Kit does not allow, each with its pointer", async () => {
    // Prepare
    const { emu } = await startHome();
    const refused: [Json, string][] = [
      [{ type: "modal", blocks: [] }, "/view/type"],
      [home([{ type: "carousel" }]), "/view/blocks/0/type"],
      [home([{ type: "header", text: { type: "mrkdwn", text: "h" } }]), "/view/blocks/0/text/type"],
      [home([{ type: "section" }]), "/view/blocks/0"],
      [
        home([section("a", { block_id: "same" }), section("b", { block_id: "same" })]),
        "/view/blocks/1/block_id",
      ],
      [home([actions([button("twice"), button("twice")])]), "/view/blocks/0/elements/1/action_id"],
      [home([actions([button("b", "v", { style: "loud" })])]), "/view/blocks/0/elements/0/style"],
      [home([section("")]), "/view/blocks/0/text/text"],
      [
        home([actions([{ type: "static_select", action_id: "s" }])]),
        "/view/blocks/0/elements/0/type",
      ],
      [{ type: "home" }, "/view"],
    ];
    for (const [view, pointer] of refused) {
      // Act
      const answer = await call(emu, "views.publish", { user_id: PERSON, view }, BOT);
      // Assess
      expect(answer.body.error, JSON.stringify(view)).toBe("invalid_arguments");
      expect(messagesOf(answer.body).join("\n"), JSON.stringify(view)).toContain(
        `[json-pointer:${pointer}]`,
      );
    }
  });

  it("answers the documented errors of authentication, arguments and the app", async () => {
    // Prepare
    const { emu } = await startHome();
    const view = home([section("s")]);
    // Act
    const none = await call(emu, "views.publish", { user_id: PERSON, view });
    const unknown = await call(emu, "views.publish", { user_id: PERSON, view }, "xoxb-nobody");
    const userToken = await call(
      emu,
      "views.publish",
      { user_id: PERSON, view },
      "xoxp-member-0001",
    );
    const appless = await call(emu, "views.publish", { user_id: PERSON, view }, "xoxb-bot-0001");
    const nobody = await call(emu, "views.publish", { user_id: "U0NOBODY", view }, BOT);
    const aBot = await call(emu, "views.publish", { user_id: "U0BOT", view }, BOT);
    const noView = await call(emu, "views.publish", { user_id: PERSON }, BOT);
    const notJson = await call(
      emu,
      "views.publish",
      { user_id: PERSON, view: "{nope" },
      BOT,
      "form",
    );
    const huge = await call(
      emu,
      "views.publish",
      { user_id: PERSON, view: home([section("s")], { private_metadata: text(260 * 1024) }) },
      BOT,
    );
    // Assess
    expect(none.body).toEqual({ ok: false, error: "not_authed" });
    expect(unknown.body).toEqual({ ok: false, error: "invalid_auth" });
    expect(userToken.body).toEqual({ ok: false, error: "not_allowed_token_type" });
    expect(appless.body).toEqual({ ok: false, error: "not_allowed_token_type" });
    for (const bad of [nobody, aBot]) {
      expect(bad.body).toEqual({
        ok: false,
        error: "invalid_arguments",
        response_metadata: { messages: ["invalid `user_id`"] },
      });
    }
    expect(noView.body.error).toBe("invalid_arguments");
    expect(notJson.body.error).toBe("invalid_arguments");
    expect(huge.body).toEqual({ ok: false, error: "view_too_large" });
  });

  it("answers not_enabled when the app's Home tab is off", async () => {
    const { emu } = await startHome({ homeTab: false });
    const answer = await call(emu, "views.publish", { user_id: PERSON, view: home([]) }, BOT);
    expect(answer.body).toEqual({ ok: false, error: "not_enabled" });
  });

  it("limits views.publish to tier 4 (100 a minute per app), then answers again a minute later", async () => {
    // Prepare
    const { emu, clock } = await startHome();
    const view = home([section("s")]);
    // Act
    const answers: Answer[] = [];
    for (let i = 0; i < 101; i++)
      answers.push(await call(emu, "views.publish", { user_id: PERSON, view }, BOT));
    clock.advance(60_000);
    const later = await call(emu, "views.publish", { user_id: PERSON, view }, BOT);
    // Assess
    expect(answers.slice(0, 100).every((a) => a.body.ok === true)).toBe(true);
    expect(answers[100]?.status).toBe(429);
    expect(answers[100]?.body).toEqual({ ok: false, error: "ratelimited" });
    expect(Number(answers[100]?.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(later.body.ok).toBe(true);
  });
});

type Answer = Awaited<ReturnType<typeof call>>;

describe("chat.postMessage", () => {
  it("posts to a person's id into the app's DM with them, and the DM's id works as the channel", async () => {
    // Prepare
    const { emu } = await startHome();
    const blocks = [section("Your calendar *Work* failed"), actions([button("reconnect", "cal1")])];
    // Act
    const first = await call(
      emu,
      "chat.postMessage",
      { channel: PERSON, text: "Work failed", blocks },
      BOT,
    );
    const channel = String(first.body.channel);
    const second = await call(emu, "chat.postMessage", { channel, text: "again" }, BOT, "form");
    const seen = await state(emu);
    // Assess
    expect(first.body).toMatchObject({
      ok: true,
      channel: expect.stringMatching(/^D[A-Z0-9]+$/),
      ts: expect.stringMatching(new RegExp(`^${T0S}\\.\\d{6}$`)),
      message: {
        type: "message",
        text: "Work failed",
        user: "U0BOT",
        bot_id: expect.stringMatching(/^B/),
        app_id: "A0MAIN",
        ts: first.body.ts,
      },
    });
    expect(second.body).toMatchObject({ ok: true, channel });
    expect(second.body.ts).not.toBe(first.body.ts);
    expect(seen.messages).toEqual([
      { app: "A0MAIN", channel, user: PERSON, text: "Work failed", blocks, ts: first.body.ts },
      { app: "A0MAIN", channel, user: PERSON, text: "again", ts: second.body.ts },
    ]);
  });

  it("answers the documented errors: scope, channel, content, blocks, length, token type", async () => {
    // Prepare
    const { emu } = await startHome();
    const post = (args: Json, token = BOT) => call(emu, "chat.postMessage", args, token);
    // Act
    const unscoped = await post({ channel: PERSON, text: "t" }, BOT_UNSCOPED);
    const userToken = await post({ channel: PERSON, text: "t" }, "xoxp-member-0001");
    const nobody = await post({ channel: "U0NOBODY", text: "t" });
    const aChannel = await post({ channel: "C0GENERAL", text: "t" });
    const aBot = await post({ channel: "U0BOT", text: "t" });
    const empty = await post({ channel: PERSON });
    const format = await post({ channel: PERSON, blocks: "{not an array" });
    const invalid = await post({
      channel: PERSON,
      blocks: [{ type: "header", text: { type: "plain_text", text: text(151) } }],
    });
    const tooMany = await post({ channel: PERSON, blocks: many(51, () => ({ type: "divider" })) });
    const fifty = await post({ channel: PERSON, blocks: many(50, () => ({ type: "divider" })) });
    const longest = await post({ channel: PERSON, text: text(40_000) });
    const tooLong = await post({ channel: PERSON, text: text(40_001) });
    // Assess
    expect(unscoped.body).toEqual({
      ok: false,
      error: "missing_scope",
      needed: "chat:write",
      provided: "commands",
    });
    expect(userToken.body).toEqual({ ok: false, error: "not_allowed_token_type" });
    for (const bad of [nobody, aChannel, aBot])
      expect(bad.body).toEqual({ ok: false, error: "channel_not_found" });
    expect(empty.body).toEqual({ ok: false, error: "no_text" });
    expect(format.body).toEqual({ ok: false, error: "invalid_blocks_format" });
    expect(invalid.body).toEqual({
      ok: false,
      error: "invalid_blocks",
      errors: ["must be less than 151 characters [json-pointer:/blocks/0/text/text]"],
      response_metadata: {
        messages: ["[ERROR] must be less than 151 characters [json-pointer:/blocks/0/text/text]"],
      },
    });
    expect(tooMany.body.error).toBe("invalid_blocks");
    expect(messagesOf(tooMany.body)[0]).toContain("[json-pointer:/blocks]");
    expect(fifty.body.ok).toBe(true);
    expect(longest.body.ok).toBe(true);
    expect(tooLong.body).toEqual({ ok: false, error: "msg_too_long" });
  });

  it("limits posts to about one a second per DM (60 a minute), each DM on its own", async () => {
    // Prepare
    const { emu, clock } = await startHome();
    // Act
    const answers: Answer[] = [];
    for (let i = 0; i < 61; i++)
      answers.push(await call(emu, "chat.postMessage", { channel: PERSON, text: `m${i}` }, BOT));
    const otherDm = await call(emu, "chat.postMessage", { channel: "U0MEMBER2", text: "hi" }, BOT);
    clock.advance(60_000);
    const later = await call(emu, "chat.postMessage", { channel: PERSON, text: "later" }, BOT);
    // Assess
    expect(answers.slice(0, 60).every((a) => a.body.ok === true)).toBe(true);
    expect(answers[60]?.status).toBe(429);
    expect(answers[60]?.retryAfter).not.toBeNull();
    expect(otherDm.body.ok).toBe(true);
    expect(later.body.ok).toBe(true);
    expect(((await state(emu)).messages as unknown[]).length).toBe(62);
  });
});

describe("the demo workspace", () => {
  it("lets the app's bot publish a Home tab and DM, and the person snooze with their own token", async () => {
    // Prepare
    const clock = new ManualClock(Date.UTC(2025, 2, 3, 9, 0, 0));
    const workspace = loadWorkspace(path.join(repoRoot, "emulator/demo-workspace.json"));
    const emu = await startEmulator({ workspace, clock, expirySweepMs: 0 });
    try {
      // Act
      const published = await call(
        emu,
        "views.publish",
        { user_id: "U001", view: home([section("Hi")]) },
        "xoxb-statuspilot-demo",
      );
      const posted = await call(
        emu,
        "chat.postMessage",
        { channel: "U001", text: "Hi" },
        "xoxb-statuspilot-demo",
      );
      const snoozed = await call(emu, "dnd.setSnooze", { num_minutes: 15 }, "xoxp-demo-U001");
      const seen = await call(emu, "dnd.info", {}, "xoxp-statuspilot-U001");
      // Assess
      expect(published.body.ok).toBe(true);
      expect(posted.body).toMatchObject({ ok: true, message: { user: "U0SPBOT" } });
      expect(snoozed.body.ok).toBe(true);
      expect(seen.body).toMatchObject({ ok: true, snooze_enabled: true, snooze_remaining: 900 });
    } finally {
      await emu.close();
    }
  });
});
