/**
 * `views.publish` and `chat.postMessage` (an extension beyond the spec, after the platform's
 * public reference): an app publishes a person's Home tab and writes into its direct message
 * with them, with a bot token. Block Kit is checked against its documented limits
 * (`blockkit.ts`); the Home views and messages are kept in `home-state.ts`.
 */
import { createHash } from "node:crypto";
import {
  type BlockProblem,
  checkHomeView,
  checkMessageBlocks,
  isObject,
  problemText,
  withGeneratedIds,
} from "./blockkit";
import { authenticateBot, botIdentity, dmChannelId, personNamed } from "./bot-identity";
import { type CallContext, fail, type MethodResult } from "./methods";
import type { AppState } from "./model";
import { stringArg } from "./request";
import { rateLimited, type TierLimiter } from "./tiers";

type Json = Record<string, unknown>;
type Method = (ctx: CallContext) => MethodResult;

/** "Error returned if the provided view is greater than 250kb." */
export const MAX_VIEW_BYTES = 250 * 1024;
/** "Provide no more than 40,000 characters or risk truncation": longer is `msg_too_long`. */
export const MAX_MESSAGE_TEXT = 40_000;

/** A JSON argument: a string to parse (forms), or the value itself (a JSON body). */
type JsonArg =
  | { ok: true; value: unknown }
  | { ok: false; code: "invalid_array_arg" | "unparsable" };

function jsonArg(v: unknown): JsonArg {
  if (typeof v !== "string") {
    // A repeated form field is an array of strings where one JSON string belongs.
    if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "string"))
      return { ok: false, code: "invalid_array_arg" };
    return { ok: true, value: v };
  }
  try {
    return { ok: true, value: JSON.parse(v) };
  } catch {
    return { ok: false, code: "unparsable" };
  }
}

const invalidArguments = (messages: string[], caller: string): MethodResult => ({
  ...fail("invalid_arguments", { response_metadata: { messages } }),
  caller,
});

const appName = (app: AppState): string => {
  const info = app.manifest.display_information as { name?: unknown } | undefined;
  return typeof info?.name === "string" ? info.name : app.app.id;
};

const homeTabEnabled = (app: AppState): boolean =>
  (app.manifest.features as { app_home?: { home_tab_enabled?: unknown } } | undefined)?.app_home
    ?.home_tab_enabled === true;

export function homeMethods(tiers: TierLimiter): Record<string, Method> {
  const publish: Method = (ctx) => {
    const auth = authenticateBot(ctx, undefined);
    if (!auth.ok) return auth.result;
    const { token, app } = auth;
    const caller = token.user;
    const slow = rateLimited(tiers, "tier4", "views.publish", ctx, token);
    if (slow) return slow;
    const userArg = stringArg(ctx.args, "user_id");
    if (!userArg.ok) return { ...fail(userArg.code), caller };
    const user = personNamed(ctx.model, userArg.value);
    if (user === undefined) return invalidArguments(["invalid `user_id`"], caller);
    if (!homeTabEnabled(app)) return { ...fail("not_enabled"), caller, target: user };
    const raw = ctx.args.view;
    if (raw === undefined || raw === null || raw === "")
      return invalidArguments(
        [problemText({ pointer: "/", message: "missing required field: view" })],
        caller,
      );
    const parsed = jsonArg(raw);
    if (!parsed.ok) {
      if (parsed.code === "invalid_array_arg") return { ...fail(parsed.code), caller };
      const message = "must provide a JSON object";
      return invalidArguments([problemText({ pointer: "/view", message })], caller);
    }
    const view = parsed.value;
    if (Buffer.byteLength(JSON.stringify(view)) > MAX_VIEW_BYTES)
      return { ...fail("view_too_large"), caller, target: user };
    const problems = checkHomeView(view);
    if (problems.length > 0 || !isObject(view))
      return { ...invalidArguments(problems.map(problemText), caller), target: user };
    const hashArg = stringArg(ctx.args, "hash");
    if (!hashArg.ok) return { ...fail(hashArg.code), caller };
    const existing = ctx.model.home.view(app.app.id, user);
    if (hashArg.value !== undefined && existing && existing.view.hash !== hashArg.value)
      return { ...fail("hash_conflict"), caller, target: user };
    const stored = storedView(ctx, app, user, view, existing?.view);
    ctx.model.home.setView({ app: app.app.id, user, sent: structuredClone(view), view: stored });
    return { status: 200, body: { ok: true, view: structuredClone(stored) }, caller, target: user };
  };

  const postMessage: Method = (ctx) => {
    const auth = authenticateBot(ctx, "chat:write");
    if (!auth.ok) return auth.result;
    const { token, app } = auth;
    const caller = token.user;
    const channelArg = stringArg(ctx.args, "channel");
    if (!channelArg.ok) return { ...fail(channelArg.code), caller };
    const user = recipient(ctx, app.app.id, channelArg.value);
    if (user === undefined) return { ...fail("channel_not_found"), caller };
    const channel = dmChannelId(app.app.id, user);
    const rate = tiers.takeMessage(app.app.id, channel, ctx.now);
    if (!rate.ok) {
      const headers = { "retry-after": String(rate.retryAfterS) };
      return { ...fail("ratelimited"), headers, caller, target: user };
    }
    const textArg = stringArg(ctx.args, "text");
    if (!textArg.ok) return { ...fail(textArg.code), caller, target: user };
    const text = textArg.value ?? "";
    const blocks = messageBlocks(ctx.args.blocks);
    if (!blocks.ok) return { ...blocks.result, caller, target: user };
    if (text === "" && blocks.value === undefined)
      return { ...fail("no_text"), caller, target: user };
    if ([...text].length > MAX_MESSAGE_TEXT)
      return { ...fail("msg_too_long"), caller, target: user };
    const ts = ctx.model.home.nextTs(ctx.now);
    const bot = botIdentity(ctx.model, app.app.id);
    const storedBlocks =
      blocks.value === undefined ? undefined : withGeneratedIds(blocks.value, `${channel}:${ts}`);
    ctx.model.home.addMessage({
      app: app.app.id,
      channel,
      user,
      text,
      ...(blocks.value === undefined ? {} : { blocks: structuredClone(blocks.value) as Json[] }),
      ...(storedBlocks === undefined ? {} : { storedBlocks }),
      ts,
      ...bot,
    });
    const message = {
      type: "message",
      text,
      user: bot.botUserId,
      bot_id: bot.botId,
      app_id: app.app.id,
      team: ctx.model.team.id,
      ts,
      ...(storedBlocks === undefined ? {} : { blocks: structuredClone(storedBlocks) }),
      bot_profile: {
        id: bot.botId,
        app_id: app.app.id,
        name: appName(app),
        deleted: false,
        team_id: ctx.model.team.id,
      },
    };
    return { status: 200, body: { ok: true, channel, ts, message }, caller, target: user };
  };

  return { "views.publish": publish, "chat.postMessage": postMessage };
}

/** `channel`: a person's id (the app's DM with them) or the id of that DM itself. */
function recipient(
  ctx: CallContext,
  appId: string,
  channel: string | undefined,
): string | undefined {
  const person = personNamed(ctx.model, channel);
  if (person !== undefined) return person;
  for (const user of ctx.model.users.values()) {
    if (user.is_bot !== true && dmChannelId(appId, user.id) === channel) return user.id;
  }
  return undefined;
}

type Blocks = { ok: true; value: unknown[] | undefined } | { ok: false; result: MethodResult };

/** A message's `blocks`: absent or empty is none; not an array is `invalid_blocks_format`. */
function messageBlocks(raw: unknown): Blocks {
  if (raw === undefined || raw === null || raw === "") return { ok: true, value: undefined };
  const parsed = jsonArg(raw);
  if (!parsed.ok || !Array.isArray(parsed.value))
    return { ok: false, result: fail("invalid_blocks_format") };
  if (parsed.value.length === 0) return { ok: true, value: undefined };
  const problems: BlockProblem[] = checkMessageBlocks(parsed.value);
  if (problems.length === 0) return { ok: true, value: parsed.value };
  const errors = problems.map((p) => `${p.message} [json-pointer:${p.pointer}]`);
  const messages = problems.map(problemText);
  return { ok: false, result: fail("invalid_blocks", { errors, response_metadata: { messages } }) };
}

/** The view as the platform stores and answers it. */
function storedView(
  ctx: CallContext,
  app: AppState,
  user: string,
  view: Json,
  previous: Json | undefined,
): Json {
  const id = typeof previous?.id === "string" ? previous.id : ctx.model.home.nextViewId();
  const digest = createHash("sha256")
    .update(`${String(previous?.hash ?? "")}:${JSON.stringify(view)}`)
    .digest("hex")
    .slice(0, 8);
  const hash = `${Math.floor(ctx.now / 1000)}.${digest}`;
  const team = ctx.model.team.id;
  return {
    id,
    team_id: team,
    type: "home",
    close: null,
    submit: null,
    ...(view.title === undefined ? {} : { title: view.title }),
    blocks: withGeneratedIds(view.blocks as unknown[], `${app.app.id}:${user}:${hash}`),
    private_metadata: typeof view.private_metadata === "string" ? view.private_metadata : "",
    callback_id: typeof view.callback_id === "string" ? view.callback_id : "",
    state: { values: {} },
    hash,
    clear_on_close: false,
    notify_on_close: false,
    root_view_id: id,
    previous_view_id: null,
    app_id: app.app.id,
    external_id: typeof view.external_id === "string" ? view.external_id : "",
    app_installed_team_id: team,
    bot_id: botIdentity(ctx.model, app.app.id).botId,
  };
}
