import type { TeamBotRecord } from "#lib/core/notice-store";
import { type Item, n, readN, readS, s } from "./codec";
import { typedItem } from "./item-head";

/** A team's bot token, sealed: one item per team (`TEAM#<team>`, `BOT`), whoever installed. */

export const teamBotKeys = (team: string) => ({ PK: `TEAM#${team}`, SK: "BOT" });

export function teamBotToItem(b: TeamBotRecord): Item {
  const keys = teamBotKeys(b.team);
  return {
    ...typedItem(keys, "team-bot"),
    team: s(b.team),
    tokenSealed: s(b.tokenSealed),
    ...(b.botUser !== undefined ? { botUser: s(b.botUser) } : {}),
    updatedAt: n(b.updatedAt),
  };
}

export const teamBotFromItem = (item: Item): TeamBotRecord => ({
  team: readS(item, "team"),
  tokenSealed: readS(item, "tokenSealed"),
  ...(item.botUser !== undefined ? { botUser: readS(item, "botUser") } : {}),
  updatedAt: readN(item, "updatedAt"),
});
