import type { UserKey } from "./types";

/**
 * What telling people (issue 26) keeps: each problem's record (one direct message per problem),
 * the hash of the Home view last published (nothing is published when it would not change), and
 * each team's bot token. Single-item conditional writes; lib/store/dynamo-notice-store.ts and
 * memory-notice-store.ts pass test/contract/notice-store.contract.ts.
 */

/** One problem of a person's (lib/core/problems.ts), and what they were told of it. */
export interface ProblemRecord {
  key: UserKey;
  /** `<kind>` or `<kind>#<sourceId>`. */
  id: string;
  /** When its record was made, or last claimed for its message, epoch ms. */
  openedAt: number;
  /** When its direct message went out. */
  toldAt?: number;
  /** Why no message will go out for it: turned off, no bot token, or refused for good. */
  untold?: "dms_off" | "no_bot_token" | "refused";
}

/** The Home view last published for a person. */
export interface HomeRecord {
  key: UserKey;
  /** A hash of what it shows (its one-time settings link left out). */
  hash: string;
  publishedAt: number;
}

/** A team's bot token, sealed to `{team, user: "-", field: "bot_token"}`. */
export interface TeamBotRecord {
  team: string;
  tokenSealed: string;
  /** The bot's user id, when the service said it. */
  botUser?: string;
  updatedAt: number;
}

export interface NoticeStore {
  problems(key: UserKey): Promise<ProblemRecord[]>;
  /**
   * Writes a problem's record: when `expectedOpenedAt` is undefined, only if there is none (a
   * new problem); otherwise only if the stored one still has that `openedAt` (nobody else
   * claimed or settled it meanwhile). Answers whether it wrote.
   */
  putProblem(record: ProblemRecord, expectedOpenedAt?: number): Promise<boolean>;
  /** Removes a problem's record (it cleared); nothing happens when there is none. */
  deleteProblem(key: UserKey, id: string): Promise<void>;
  home(key: UserKey): Promise<HomeRecord | undefined>;
  putHome(record: HomeRecord): Promise<void>;
  teamBot(team: string): Promise<TeamBotRecord | undefined>;
  putTeamBot(record: TeamBotRecord): Promise<void>;
}
