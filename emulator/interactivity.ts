/**
 * A person in the App Home (an extension beyond the spec, after the platform's public reference
 * for the `app_home_opened` event and the `block_actions` interaction payload), driven over HTTP
 * by tests and the local stack:
 * - `POST /_emulator/home_opened {user, app?, tab?}`: the person opens the app's Home tab; the
 *   app receives `app_home_opened` like `user_change` (signed, retried, faults apply).
 * - `POST /_emulator/click {user, action_id, value?, block_id?, app?, surface?, ts?}`: the person
 *   clicks a button of their current Home view or latest DM; the app's
 *   `settings.interactivity.request_url` receives the `block_actions` payload as a `payload=`
 *   form, signed the same way. The platform does not retry an interaction: one attempt, 3 s.
 */
import { randomBytes } from "node:crypto";
import type { Clock } from "#lib/core/clock";
import { buttonsOf } from "./blockkit";
import { botIdentity, dmChannelId, personNamed } from "./bot-identity";
import { type EventDispatcher, eventEnvelope, signEvent, subscribedTarget } from "./events";
import type { AppState, EmulatorModel } from "./model";
import type { ResponseUrls } from "./response-urls";

export const HOME_OPENED_PATH = "/_emulator/home_opened";
export const CLICK_PATH = "/_emulator/click";

/** What a control endpoint answers: an HTTP status and a JSON body. */
export interface ControlAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** One click delivered (or not) to an app, for `/_emulator/state`. */
export interface InteractionRecord {
  triggerId: string;
  appId: string;
  user: string;
  actionId: string;
  container: "view" | "message";
  outcome: "delivered" | "failed";
  status?: number;
  reason?: string;
}

type Json = Record<string, unknown>;

export interface InteractivityOptions {
  model: EmulatorModel;
  clock: Clock;
  events: EventDispatcher;
  responseUrls: ResponseUrls;
  /** How long the app has to answer a click (the platform: 3 s). */
  attemptTimeoutMs?: number;
  fetch?: typeof fetch;
}

const bad = (status: number, error: string): ControlAnswer => ({
  status,
  body: { ok: false, error },
});

const text = (doc: Json, key: string): string | undefined =>
  typeof doc[key] === "string" ? (doc[key] as string) : undefined;

/** `<epoch s>.<6 digits>`, the platform's event and action timestamps. */
const stamp = (nowMs: number): string =>
  `${Math.floor(nowMs / 1000)}.${String((nowMs % 1000) * 1000).padStart(6, "0")}`;

export class Interactivity {
  private readonly log: InteractionRecord[] = [];
  private triggerSeq = 0;

  constructor(private readonly opts: InteractivityOptions) {}

  records(): InteractionRecord[] {
    return this.log.map((r) => ({ ...r }));
  }

  homeOpened(doc: Json): ControlAnswer {
    const { model, clock, events } = this.opts;
    const user = this.person(doc);
    if (typeof user !== "string") return user;
    const tab = doc.tab ?? "home";
    if (tab !== "home" && tab !== "messages") return bad(400, `tab must be "home" or "messages"`);
    const chosen = this.appFor(
      doc,
      (state) => subscribedTarget(state, "app_home_opened") !== undefined,
    );
    if (!chosen.ok) return chosen.answer;
    const state = chosen.app;
    const target = subscribedTarget(state, "app_home_opened");
    if (!target) return bad(409, `app ${state.app.id} does not subscribe to app_home_opened`);
    const published = model.home.view(state.app.id, user);
    const now = clock.now();
    const event = {
      type: "app_home_opened",
      user,
      channel: dmChannelId(state.app.id, user),
      tab,
      ...(tab === "home" && published ? { view: structuredClone(published.view) } : {}),
      event_ts: stamp(now),
    };
    const envelope = eventEnvelope({
      app: state.app,
      teamId: model.team.id,
      eventId: model.nextEventId(),
      eventTime: Math.floor(now / 1000),
      event,
    });
    events.dispatch(target, envelope);
    return { status: 200, body: { ok: true, app: state.app.id, event_id: envelope.event_id } };
  }

  async click(doc: Json): Promise<ControlAnswer> {
    const user = this.person(doc);
    if (typeof user !== "string") return user;
    const actionId = text(doc, "action_id");
    if (actionId === undefined) return bad(400, "action_id (a string) is required");
    if (doc.value !== undefined && typeof doc.value !== "string")
      return bad(400, "value must be a string");
    const found = this.find(user, actionId, doc);
    if (!found) {
      const withValue = doc.value === undefined ? "" : ` and value "${String(doc.value)}"`;
      const where = `${user}'s current Home view or latest DM`;
      return bad(404, `no button with action_id "${actionId}"${withValue} on ${where}`);
    }
    const settings = found.app.manifest.settings as { interactivity?: Json } | undefined;
    const url = settings?.interactivity?.request_url;
    if (settings?.interactivity?.is_enabled !== true || typeof url !== "string")
      return bad(409, `app ${found.app.app.id} has no settings.interactivity.request_url`);
    const payload = this.payload(user, found);
    const record = await this.deliver(found.app, url, payload);
    this.log.push({
      ...record,
      triggerId: String(payload.trigger_id),
      appId: found.app.app.id,
      user,
      actionId,
      container: found.kind,
    });
    return {
      status: 200,
      body: {
        ok: true,
        delivered: record.outcome === "delivered",
        ...(record.status === undefined ? {} : { status: record.status }),
        ...(record.reason === undefined ? {} : { reason: record.reason }),
        trigger_id: payload.trigger_id,
        payload,
      },
    };
  }

  /** The person `doc.user` names: 400 without one, 404 for an id that is no person. */
  private person(doc: Json): string | ControlAnswer {
    const id = text(doc, "user");
    if (id === undefined) return bad(400, "user (a person's id) is required");
    return personNamed(this.opts.model, id) ?? bad(404, `${id} is not a person of the workspace`);
  }

  /** The app named by `doc.app`, else the only app that `fits`. */
  private appFor(
    doc: Json,
    fits: (state: AppState) => boolean,
  ): { ok: true; app: AppState } | { ok: false; answer: ControlAnswer } {
    const named = text(doc, "app");
    if (named !== undefined) {
      const state = this.opts.model.apps.get(named);
      return state ? { ok: true, app: state } : { ok: false, answer: bad(404, `no app ${named}`) };
    }
    const candidates = [...this.opts.model.apps.values()].filter(fits);
    if (candidates.length === 1) return { ok: true, app: candidates[0] as AppState };
    const why =
      candidates.length === 0
        ? "no app subscribes to app_home_opened (settings.event_subscriptions)"
        : `several apps could receive it (${candidates.map((a) => a.app.id).join(", ")}): name one with app`;
    return { ok: false, answer: bad(candidates.length === 0 ? 409 : 400, why) };
  }

  /** The button: on a Home view (latest publish first), then on the latest DM (or `ts`). */
  private find(user: string, actionId: string, doc: Json): Found | undefined {
    const { model } = this.opts;
    const app = text(doc, "app");
    const surface = text(doc, "surface");
    const matches = (blocks: Json[]) =>
      buttonsOf(blocks).find(
        ({ blockId, button }) =>
          button.action_id === actionId &&
          (doc.value === undefined || button.value === doc.value) &&
          (doc.block_id === undefined || blockId === doc.block_id),
      );
    if (surface !== "message") {
      const homes = model.home
        .allViews()
        .filter((h) => h.user === user && (app ?? h.app) === h.app);
      for (const home of homes.reverse()) {
        const hit = matches(home.view.blocks as Json[]);
        const state = model.apps.get(home.app);
        if (hit && state) return { kind: "view", app: state, ...hit, view: home.view };
      }
    }
    if (surface === "view" || surface === "home") return undefined;
    const ts = text(doc, "ts");
    const dms = model.home
      .allMessages()
      .filter((m) => m.user === user && (app ?? m.app) === m.app && (ts ?? m.ts) === m.ts);
    const latest = dms.at(-1);
    const state = latest && model.apps.get(latest.app);
    const hit = latest?.storedBlocks && matches(latest.storedBlocks);
    if (!latest || !state || !hit) return undefined;
    const bot = botIdentity(model, latest.app);
    const message = {
      type: "message",
      user: bot.botUserId,
      bot_id: bot.botId,
      app_id: latest.app,
      text: latest.text,
      ts: latest.ts,
      team: model.team.id,
      blocks: structuredClone(latest.storedBlocks),
    };
    return { kind: "message", app: state, ...hit, message, channel: latest.channel };
  }

  private payload(user: string, found: Found): Json {
    const { model, clock } = this.opts;
    const now = clock.now();
    this.triggerSeq += 1;
    const person = model.users.get(user);
    const { button } = found;
    const action = {
      action_id: button.action_id,
      block_id: found.blockId,
      text: button.text,
      ...(typeof button.value === "string" ? { value: button.value } : {}),
      ...(typeof button.style === "string" ? { style: button.style } : {}),
      type: "button",
      action_ts: stamp(now),
    };
    const common = {
      type: "block_actions",
      user: { id: user, username: person?.name, name: person?.name, team_id: model.team.id },
      api_app_id: found.app.app.id,
      token: found.app.app.verification_token ?? `vt-${found.app.app.id}`,
      trigger_id: `${this.triggerSeq}.${Math.floor(now / 1000)}.${randomBytes(16).toString("hex")}`,
      team: { id: model.team.id, domain: (model.team.name ?? model.team.id).toLowerCase() },
      enterprise: null,
      is_enterprise_install: false,
    };
    if (found.kind === "view") {
      const view = found.view;
      return {
        ...common,
        container: { type: "view", view_id: view.id },
        view: structuredClone(view),
        actions: [action],
      };
    }
    const ts = String(found.message.ts);
    return {
      ...common,
      container: {
        type: "message",
        message_ts: ts,
        channel_id: found.channel,
        is_ephemeral: false,
      },
      channel: { id: found.channel, name: "directmessage" },
      message: found.message,
      state: { values: {} },
      response_url: this.opts.responseUrls.issue(found.channel, ts),
      actions: [action],
    };
  }

  /** One signed attempt, as the platform makes: the app must answer 2xx within 3 s. */
  private async deliver(
    app: AppState,
    url: string,
    payload: Json,
  ): Promise<Pick<InteractionRecord, "outcome" | "status" | "reason">> {
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    const timestamp = Math.floor(this.opts.clock.now() / 1000);
    try {
      const res = await (this.opts.fetch ?? fetch)(url, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "x-svc-request-timestamp": String(timestamp),
          "x-svc-signature": signEvent(app.app.signing_secret, timestamp, body),
        },
        body,
        signal: AbortSignal.timeout(this.opts.attemptTimeoutMs ?? 3000),
      });
      await res.arrayBuffer().catch(() => undefined);
      return res.ok
        ? { outcome: "delivered", status: res.status }
        : { outcome: "failed", status: res.status, reason: "http_error" };
    } catch (err: unknown) {
      const timedOut = err instanceof Error && err.name === "TimeoutError";
      return { outcome: "failed", reason: timedOut ? "http_timeout" : "connection_failed" };
    }
  }
}

type Found =
  | { kind: "view"; app: AppState; blockId: string; button: Json; view: Json }
  | {
      kind: "message";
      app: AppState;
      blockId: string;
      button: Json;
      message: Json;
      channel: string;
    };
