import { MemoryNotifier } from "#lib/app/notify/memory-notifier";
import { describeNotifierContract } from "../../contract/notifier.contract";

describeNotifierContract("MemoryNotifier", async () => {
  const notifier = new MemoryNotifier();
  const person = { team: "T1", user: "U1" };
  notifier.addBot("T1");
  return {
    notifier,
    person,
    botless: { team: "T2", user: "U9" },
    revokeBot: async () => notifier.revokeBot("T1"),
    seen: async () => {
      const home = notifier.homeOf(person)?.blocks;
      return {
        ...(home !== undefined ? { home } : {}),
        messages: notifier.messagesTo(person).map((m) => m.text),
      };
    },
    cleanup: async () => {},
  };
});
