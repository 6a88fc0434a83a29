import { describe, expect, it } from "vitest";
import type { DirectMessage, HomeView, Notifier } from "#lib/core/notifier";
import type { UserKey } from "#lib/core/types";

// The rules every Notifier keeps (lib/core/notifier.ts): a person of a team with a bot token is
// shown the Home view published last and receives each message; a team without a bot token
// gets `no_bot_token` and nothing is shown or sent; a bot token the service revoked, or a view
// or message over the documented block limits (100 in a Home view, 50 in a message), is
// `refused` and changes nothing. A refusal is answered, never thrown.

export interface NotifierSetup {
  notifier: Notifier;
  /** A person of the team whose bot token the notifier holds. */
  person: UserKey;
  /** A person of a team for which the notifier has no bot token. */
  botless: UserKey;
  /** The service revokes the bot token of `person`'s team. */
  revokeBot(): Promise<void>;
  /** What `person` sees: their Home view's blocks, and their messages' texts, oldest first. */
  seen(): Promise<{ home?: readonly unknown[]; messages: string[] }>;
  cleanup(): Promise<void>;
}

const section = (text: string) => ({ type: "section", text: { type: "mrkdwn", text } });
const view = (...texts: string[]): HomeView => ({ blocks: texts.map(section) });

export function describeNotifierContract(name: string, make: () => Promise<NotifierSetup>): void {
  describe(`Notifier contract: ${name}`, () => {
    const withSetup = (test: (s: NotifierSetup) => Promise<void>) => async () => {
      const setup = await make();
      try {
        await test(setup);
      } finally {
        await setup.cleanup();
      }
    };

    it(
      "shows the person the Home view published last",
      withSetup(async (s) => {
        // Act
        const first = await s.notifier.publishHome(s.person, view("one"));
        const second = await s.notifier.publishHome(s.person, view("two", "three"));
        // Assess
        expect([first, second]).toEqual([{ delivered: true }, { delivered: true }]);
        const seen = await s.seen();
        expect(seen.home).toMatchObject([section("two"), section("three")]);
      }),
    );

    it(
      "delivers each message to the person, in order",
      withSetup(async (s) => {
        // Prepare
        const message: DirectMessage = { text: "Your calendar broke", blocks: [section("broke")] };
        // Act
        const a = await s.notifier.dm(s.person, message);
        const b = await s.notifier.dm(s.person, { text: "second" });
        // Assess
        expect([a, b]).toEqual([{ delivered: true }, { delivered: true }]);
        expect((await s.seen()).messages).toEqual(["Your calendar broke", "second"]);
      }),
    );

    it(
      "answers no_bot_token for a team without a bot token",
      withSetup(async (s) => {
        // Act
        const published = await s.notifier.publishHome(s.botless, view("x"));
        const sent = await s.notifier.dm(s.botless, { text: "x" });
        // Assess
        expect(published).toEqual({ delivered: false, reason: "no_bot_token" });
        expect(sent).toEqual({ delivered: false, reason: "no_bot_token" });
      }),
    );

    it(
      "answers refused once the bot token is revoked, and shows nothing new",
      withSetup(async (s) => {
        // Prepare
        await s.notifier.publishHome(s.person, view("before"));
        await s.revokeBot();
        // Act
        const published = await s.notifier.publishHome(s.person, view("after"));
        const sent = await s.notifier.dm(s.person, { text: "after" });
        // Assess
        expect(published).toMatchObject({ delivered: false, reason: "refused" });
        expect(sent).toMatchObject({ delivered: false, reason: "refused" });
        expect(await s.seen()).toMatchObject({ home: [section("before")], messages: [] });
      }),
    );

    it(
      "refuses a Home view of 101 blocks and a message of 51, taking 100 and 50",
      withSetup(async (s) => {
        // Prepare
        const texts = (count: number) => Array.from({ length: count }, (_, i) => `b${i}`);
        // Act
        const full = await s.notifier.publishHome(s.person, view(...texts(100)));
        const over = await s.notifier.publishHome(s.person, view(...texts(101)));
        const fullDm = await s.notifier.dm(s.person, {
          text: "50",
          blocks: texts(50).map(section),
        });
        const overDm = await s.notifier.dm(s.person, {
          text: "51",
          blocks: texts(51).map(section),
        });
        // Assess
        expect([full, fullDm]).toEqual([{ delivered: true }, { delivered: true }]);
        expect(over).toMatchObject({ delivered: false, reason: "refused" });
        expect(overDm).toMatchObject({ delivered: false, reason: "refused" });
        const seen = await s.seen();
        expect(seen.home).toHaveLength(100);
        expect(seen.messages).toEqual(["50"]);
      }),
    );
  });
}
