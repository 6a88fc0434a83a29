import { VersionConflict } from "#lib/core/ports";
import type { SourceRecord, UserRecord } from "#lib/core/records";
import { userRulesSchemaKnowing } from "#lib/core/rules";
import type { UseCaseContext } from "../context";
import type { UpsertUserInput, UserView } from "../contracts";
import { InvalidInputError } from "../errors";
import { parseInput, upsertUserSchemaFor } from "../inputs";
import { hasAddress, sealAddress } from "../secrets/source-address";
import { workingHoursChanged } from "../status/desired-timeline";
import { mutateStatus } from "../status/records";
import { retryOnConflict } from "../version-retry";
import { viewOf } from "./views";

/** User administration: a user and their calendar sources, created or replaced as one. */

/**
 * Creates or replaces a user; the token and source secrets are stored sealed. A new token ends
 * a re-authorisation stop (after an error, a `tokens_revoked` or an `app_uninstalled`, whose
 * scheduled deletion it cancels), and timelines of removed (or moved) calendars are dropped.
 */
export async function upsertUser(ctx: UseCaseContext, input: UpsertUserInput): Promise<UserView> {
  const policy = { allowPrivate: ctx.options.allowPrivateSourceAddresses };
  const valid = parseInput(upsertUserSchemaFor(policy), input);
  const ids = valid.sources.map((s) => s.id);
  // The rules may name only the calendars this same request gives the person.
  if (valid.rules !== undefined) parseInput(userRulesSchemaKnowing(ids), valid.rules, "/rules");
  if (new Set(ids).size !== ids.length)
    throw new InvalidInputError("source ids must be unique", "/sources");
  const owner = valid.key;
  const tokenSealed = await ctx.tokens.seal(valid.token, { ...owner, field: "access_token" });
  const refreshTokenSealed =
    valid.refreshToken === undefined
      ? undefined
      : await ctx.tokens.seal(valid.refreshToken, { ...owner, field: "refresh_token" });
  const sealedSecrets = await Promise.all(
    valid.sources.map((s) =>
      s.secret === undefined
        ? undefined
        : ctx.tokens.seal(s.secret, { ...owner, field: "source_secret" }),
    ),
  );
  // Checked by the input schema (address policy) above; from here on only sealed.
  const sealedAddresses = await Promise.all(
    valid.sources.map((s) => sealAddress(ctx.tokens, owner, s.id, s.url)),
  );
  return retryOnConflict(
    ctx.options.maxConflictRetries,
    async () => {
      const now = ctx.clock.now();
      const snap = await ctx.store.loadUser(valid.key);
      const existing = snap.user;
      const unchanged = (id: string, url: string): boolean =>
        existing?.sources.some((o) => o.id === id && hasAddress(owner, o, url)) === true;
      const sources: SourceRecord[] = valid.sources.map((s, i) => {
        const found = existing?.sources.find((o) => o.id === s.id && hasAddress(owner, o, s.url));
        // A clear address from before addresses were sealed is replaced by the sealed one.
        const { url: _clear, ...old } = found ?? { url: undefined };
        const secretSealed = sealedSecrets[i];
        const address = sealedAddresses[i];
        if (address === undefined) throw new Error("one sealed address per source");
        return {
          ...old,
          id: s.id,
          kind: s.kind,
          ...address,
          ...(secretSealed !== undefined ? { secretSealed } : {}),
        };
      });
      const record: UserRecord = {
        key: valid.key,
        tz: valid.tz,
        tokenSealed,
        // A fresh token: rotation's pair when given; no uninstall mark (a reinstall keeps the data).
        ...(refreshTokenSealed !== undefined ? { refreshTokenSealed } : {}),
        ...(valid.tokenExpiresAt !== undefined ? { tokenExpiresAt: valid.tokenExpiresAt } : {}),
        ...(valid.adminTokenUser !== undefined ? { adminTokenUser: valid.adminTokenUser } : {}),
        emails: valid.emails ?? existing?.emails ?? [],
        sources,
        rules: valid.rules ?? existing?.rules ?? {},
        mode: valid.mode,
        version: existing?.version ?? 0,
        updatedAt: now,
        // Kept: replacing a user through the admin API does not sign them out.
        ...(existing?.sessionEpoch !== undefined ? { sessionEpoch: existing.sessionEpoch } : {}),
      };
      const saved = await ctx.store.putUser(record, existing?.version);
      // A new token ends a re-authorisation stop.
      let resumed = false;
      await mutateStatus(ctx, valid.key, (rec) => {
        const { needsReauth: cleared, ...state } = rec.state;
        resumed = cleared !== undefined;
        return { ...rec, state };
      });
      // Timelines of calendars removed (or moved to another address) no longer count.
      const kept = (sourceId: string): boolean =>
        valid.sources.some((src) => src.id === sourceId && unchanged(src.id, src.url));
      const orphans = snap.timelines.filter((t) => !kept(t.sourceId));
      for (const t of orphans) await ctx.store.deleteTimeline(valid.key, t.sourceId);
      // Resumed: reconcile now, from the timelines already stored. No sync would apply them
      // again before its refresh window (the feeds did not change), and the stop left no
      // transition scheduled, so nothing else would write before then.
      // New working hours: their stretches start without any sync.
      if (
        resumed ||
        (orphans.length > 0 && existing !== undefined) ||
        workingHoursChanged(existing?.rules, record.rules)
      ) {
        await ctx.reconcile(valid.key);
      }
      return viewOf(ctx, saved, undefined);
    },
    () => {
      throw new VersionConflict(`user ${valid.key.user}`, undefined);
    },
  );
}
