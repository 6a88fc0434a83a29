import * as z from "zod";
import { ServiceTransport, type TransportOptions } from "./transport";

/**
 * The app's bot as the service's web API knows it (an extension beyond the seed spec, as the
 * platform documents it; the emulator's README, "App Home, direct messages and interactivity"):
 * `views.publish` for a person's Home tab and `chat.postMessage` into the app's direct messages
 * with them. Every failure is a ServiceError keyed by the service's `error`.
 */

const publishSchema = z.looseObject({
  ok: z.literal(true),
  view: z.looseObject({ id: z.string().min(1) }),
});

const postSchema = z.looseObject({
  ok: z.literal(true),
  channel: z.string().min(1),
  ts: z.string().min(1),
});

export type BlockJson = Readonly<Record<string, unknown>>;

export class BotClient {
  private readonly transport: ServiceTransport;

  constructor(opts: TransportOptions) {
    this.transport = new ServiceTransport(opts);
  }

  /** `views.publish`: replaces the person's Home tab with a `home` view of `blocks`. */
  async publishHome(req: {
    token: string;
    user: string;
    blocks: readonly BlockJson[];
  }): Promise<{ viewId: string }> {
    const body = await this.transport.post(
      "views.publish",
      req.token,
      { user_id: req.user, view: { type: "home", blocks: [...req.blocks] } },
      { encoding: "json" },
    );
    return { viewId: this.transport.expect(body, publishSchema, "views.publish").view.id };
  }

  /** `chat.postMessage` to a person's id: the message lands in the app's DM with them. */
  async postMessage(req: {
    token: string;
    user: string;
    text: string;
    blocks?: readonly BlockJson[];
  }): Promise<{ channel: string; ts: string }> {
    const body = await this.transport.post(
      "chat.postMessage",
      req.token,
      {
        channel: req.user,
        text: req.text,
        ...(req.blocks !== undefined
          ? { blocks: [...req.blocks] as unknown as Record<string, unknown> }
          : {}),
      },
      { encoding: "json" },
    );
    const posted = this.transport.expect(body, postSchema, "chat.postMessage");
    return { channel: posted.channel, ts: posted.ts };
  }
}
