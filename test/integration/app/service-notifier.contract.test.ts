import { afterEach } from "vitest";
import { ServiceNotifier } from "#lib/app/notify/service-notifier";
import { BotClient } from "#lib/service/bot-client";
import { describeNotifierContract } from "../../contract/notifier.contract";
import { BOT, call, closeAll, PERSON, startHome, state } from "../emulator/home-harness";

// The service's Notifier against the emulator over HTTP: the bot token of the conformance
// workspace's app, views.publish and chat.postMessage as the platform documents them.

afterEach(closeAll);

describeNotifierContract("ServiceNotifier over the emulator", async () => {
  const { emu, clock } = await startHome();
  const notifier = new ServiceNotifier({
    client: new BotClient({ baseUrl: emu.apiBase, clock }),
    botToken: async (team) => (team === "T0CONF" ? BOT : undefined),
  });
  return {
    notifier,
    person: { team: "T0CONF", user: PERSON },
    botless: { team: "T0OTHER", user: PERSON },
    revokeBot: async () => {
      await call(emu, "auth.revoke", {}, BOT);
    },
    seen: async () => {
      const now = (await state(emu)) as {
        home_views: Record<string, { blocks: unknown[] }>;
        messages: Array<{ user: string; text: string }>;
      };
      const home = now.home_views[PERSON]?.blocks;
      return {
        ...(home !== undefined ? { home } : {}),
        messages: now.messages.filter((m) => m.user === PERSON).map((m) => m.text),
      };
    },
    cleanup: async () => {},
  };
});
