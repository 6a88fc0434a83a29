import { DndState } from "./dnd-state";
import { HomeState } from "./home-state";
import type {
  CustomField,
  Role,
  Workspace,
  WorkspaceApp,
  WorkspaceToken,
  WorkspaceUser,
} from "./workspace";

/** A stored custom field value, as the profile shows it. */
export interface FieldValue {
  value: string | string[];
  alt: string;
}

/** The full profile of spec 2.1. */
export interface StoredProfile {
  title: string;
  phone: string;
  skype: string;
  real_name: string;
  real_name_normalized: string;
  display_name: string;
  display_name_normalized: string;
  fields: Record<string, FieldValue>;
  status_text: string;
  status_emoji: string;
  status_emoji_display_info: unknown[];
  status_expiration: number;
  avatar_hash: string;
  start_date: string;
  email: string;
  pronouns: string;
  huddle_state: string;
  huddle_state_expiration_ts: number;
  first_name: string;
  last_name: string;
  image_24: string;
  image_32: string;
  image_48: string;
  image_72: string;
  image_192: string;
  image_512: string;
}

export interface PendingEmail {
  id: string;
  user: string;
  oldEmail: string;
  newEmail: string;
  requestedAt: number;
  /** The confirmation message goes to both addresses (spec 2.1). */
  sentTo: [string, string];
}

export interface AppState {
  app: WorkspaceApp;
  manifest: Record<string, unknown>;
}

export const STATUS_KEYS = new Set(["status_text", "status_emoji", "status_expiration"]);
export const IMAGE_KEYS = new Set([
  "image_24",
  "image_32",
  "image_48",
  "image_72",
  "image_192",
  "image_512",
  "avatar_hash",
]);

/** Folds diacritics away, like the service's `*_normalized` fields. */
export const normalizeName = (s: string): string =>
  s.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");

function initialProfile(user: WorkspaceUser): StoredProfile {
  const p = user.profile ?? {};
  const str = (k: string, d = ""): string => (typeof p[k] === "string" ? (p[k] as string) : d);
  const realName = str("real_name", user.name);
  const [first = "", ...rest] = realName.split(/\s+/).filter((s) => s !== "");
  const displayName = str("display_name");
  const fields =
    p.fields && typeof p.fields === "object" && !Array.isArray(p.fields)
      ? (p.fields as Record<string, FieldValue>)
      : {};
  const images = Object.fromEntries(
    [24, 32, 48, 72, 192, 512].map((n) => [
      `image_${n}`,
      `https://avatars.example.test/${user.id}_${n}.png`,
    ]),
  ) as Pick<
    StoredProfile,
    "image_24" | "image_32" | "image_48" | "image_72" | "image_192" | "image_512"
  >;
  return {
    title: str("title"),
    phone: str("phone"),
    skype: "",
    real_name: realName,
    real_name_normalized: normalizeName(realName),
    display_name: displayName,
    display_name_normalized: normalizeName(displayName),
    fields: structuredClone(fields),
    status_text: str("status_text"),
    status_emoji: str("status_emoji"),
    status_emoji_display_info: [],
    status_expiration: typeof p.status_expiration === "number" ? p.status_expiration : 0,
    avatar_hash: `g${user.id.toLowerCase()}`,
    start_date: str("start_date"),
    email: str("email"),
    pronouns: str("pronouns"),
    huddle_state: "default_unset",
    huddle_state_expiration_ts: 0,
    first_name: str("first_name", first),
    last_name: str("last_name", rest.join(" ")),
    ...images,
  };
}

/** The emulator's whole mutable state, built from a workspace file. */
export class EmulatorModel {
  readonly team: Workspace["team"];
  readonly emoji: string[];
  readonly fields: CustomField[];
  readonly users = new Map<string, WorkspaceUser>();
  readonly tokens = new Map<string, WorkspaceToken>();
  readonly apps = new Map<string, AppState>();
  /** Apps made by `apps.manifest.create` (not in the workspace file): a snapshot keeps them. */
  readonly createdApps = new Set<string>();
  readonly profiles = new Map<string, StoredProfile>();
  readonly pendingEmails: PendingEmail[] = [];
  /** The App Home extension: Home views and the apps' DMs with people. */
  readonly home = new HomeState();
  /** The DND extension: people's snoozes. */
  readonly dnd = new DndState();
  private eventSeq = 0;
  private emailSeq = 0;

  constructor(ws: Workspace) {
    this.team = ws.team;
    this.emoji = ws.emoji;
    this.fields = ws.fields;
    for (const u of ws.users) {
      this.users.set(u.id, u);
      this.profiles.set(u.id, initialProfile(u));
    }
    for (const t of ws.tokens) this.tokens.set(t.token, t);
    for (const a of ws.apps) this.apps.set(a.id, { app: a, manifest: structuredClone(a.manifest) });
  }

  /** The id counters, so ids stay unique across a saved and restored state. */
  counters(): { event: number; email: number } {
    return { event: this.eventSeq, email: this.emailSeq };
  }

  restoreCounters(counters: { event: number; email: number }): void {
    this.eventSeq = counters.event;
    this.emailSeq = counters.email;
  }

  role(userId: string): Role {
    return this.users.get(userId)?.role ?? "guest";
  }

  startDateField(): CustomField | undefined {
    return this.fields.find((f) => f.start_date === true);
  }

  nextEventId(): string {
    this.eventSeq += 1;
    return `Ev${String(this.eventSeq).padStart(8, "0")}`;
  }

  addPendingEmail(user: string, oldEmail: string, newEmail: string, at: number): PendingEmail {
    this.emailSeq += 1;
    const pending: PendingEmail = {
      id: `EC${String(this.emailSeq).padStart(6, "0")}`,
      user,
      oldEmail,
      newEmail,
      requestedAt: at,
      sentTo: [oldEmail, newEmail],
    };
    // A newer request replaces an older one for the same user.
    const prior = this.pendingEmails.findIndex((p) => p.user === user);
    if (prior >= 0) this.pendingEmails.splice(prior, 1);
    this.pendingEmails.push(pending);
    return pending;
  }

  /** True when another member already has (or is confirming) this address. */
  emailTaken(email: string, forUser: string): boolean {
    const wanted = email.toLowerCase();
    for (const [id, p] of this.profiles) {
      if (id !== forUser && p.email.toLowerCase() === wanted) return true;
    }
    return this.pendingEmails.some(
      (p) => p.user !== forUser && p.newEmail.toLowerCase() === wanted,
    );
  }
}
