import type { HomeRecord, NoticeStore, ProblemRecord, TeamBotRecord } from "#lib/core/notice-store";
import type { UserKey } from "#lib/core/types";

/** What telling people keeps, in memory: unit tests, under the same contract as DynamoDB's. */
export class MemoryNoticeStore implements NoticeStore {
  private readonly problemRecords = new Map<string, ProblemRecord>();
  private readonly homes = new Map<string, HomeRecord>();
  private readonly bots = new Map<string, TeamBotRecord>();

  async problems(key: UserKey): Promise<ProblemRecord[]> {
    const prefix = `${userOf(key)}/`;
    return [...this.problemRecords.entries()]
      .filter(([id]) => id.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([, record]) => structuredClone(record));
  }

  async putProblem(record: ProblemRecord, expectedOpenedAt?: number): Promise<boolean> {
    const id = `${userOf(record.key)}/${record.id}`;
    const stored = this.problemRecords.get(id);
    const allowed =
      expectedOpenedAt === undefined
        ? stored === undefined
        : stored !== undefined && stored.openedAt === expectedOpenedAt;
    if (allowed) this.problemRecords.set(id, structuredClone(record));
    return allowed;
  }

  async deleteProblem(key: UserKey, id: string): Promise<void> {
    this.problemRecords.delete(`${userOf(key)}/${id}`);
  }

  async home(key: UserKey): Promise<HomeRecord | undefined> {
    const home = this.homes.get(userOf(key));
    return home === undefined ? undefined : structuredClone(home);
  }

  async putHome(record: HomeRecord): Promise<void> {
    this.homes.set(userOf(record.key), structuredClone(record));
  }

  async teamBot(team: string): Promise<TeamBotRecord | undefined> {
    const bot = this.bots.get(team);
    return bot === undefined ? undefined : structuredClone(bot);
  }

  async putTeamBot(record: TeamBotRecord): Promise<void> {
    this.bots.set(record.team, structuredClone(record));
  }
}

const userOf = (key: UserKey): string => `${key.team}#${key.user}`;
