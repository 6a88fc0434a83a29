import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ManifestParseError, parseManifestText, validateManifest } from "#lib/schema/manifest";
import { fixturesDir } from "./corpus-root";

type Json = Record<string, unknown>;

const load = (file: string): Json =>
  parseManifestText(readFileSync(path.join(fixturesDir, "manifests", file), "utf8")) as Json;
const v1 = () => load("full-v1.json");
const v2 = () => load("full-v2.yaml");

/** A copy of `doc` with the member at `at` set to `value` (undefined deletes it). */
function withValue(doc: Json, at: (string | number)[], value: unknown): Json {
  const copy = structuredClone(doc);
  let parent: Record<string | number, unknown> = copy;
  for (const key of at.slice(0, -1)) {
    parent[key] ??= {};
    parent = parent[key] as Record<string | number, unknown>;
  }
  const last = at[at.length - 1] as string | number;
  if (value === undefined) delete parent[last];
  else parent[last] = value;
  return copy;
}

const chars = (n: number) => "a".repeat(n);
const url = (n: number) => `https://${"a".repeat(n - 8)}`;
const items = <T>(n: number, make: (i: number) => T) =>
  Array.from({ length: n }, (_, i) => make(i));
const entries = <T>(n: number, make: (i: number) => T) =>
  Object.fromEntries(items(n, (i) => [`k${i}`, make(i)]));

interface Limit {
  what: string;
  base: () => Json;
  at: (string | number)[];
  make: (n: number) => unknown;
  limit: number;
  pointer?: string;
}

const shortcut = (i: number) => ({
  name: `s${i}`,
  type: "global",
  callback_id: `c${i}`,
  description: "d",
});
const command = (i: number) => ({ command: `/c${i}`, description: "d" });

const limits: Limit[] = [
  {
    what: "display_information.name",
    base: v1,
    at: ["display_information", "name"],
    make: chars,
    limit: 35,
  },
  {
    what: "display_information.description",
    base: v1,
    at: ["display_information", "description"],
    make: chars,
    limit: 140,
  },
  {
    what: "display_information.long_description",
    base: v1,
    at: ["display_information", "long_description"],
    make: chars,
    limit: 4000,
  },
  {
    what: "bot_user.display_name",
    base: v1,
    at: ["features", "bot_user", "display_name"],
    make: chars,
    limit: 80,
  },
  {
    what: "agent_view.agent_description",
    base: v2,
    at: ["features", "agent_view", "agent_description"],
    make: chars,
    limit: 300,
  },
  {
    what: "shortcuts",
    base: v1,
    at: ["features", "shortcuts"],
    make: (n) => items(n, shortcut),
    limit: 10,
  },
  {
    what: "shortcut callback_id",
    base: v1,
    at: ["features", "shortcuts", 0, "callback_id"],
    make: chars,
    limit: 255,
  },
  {
    what: "shortcut description",
    base: v1,
    at: ["features", "shortcuts", 0, "description"],
    make: chars,
    limit: 150,
  },
  {
    what: "slash_commands",
    base: v1,
    at: ["features", "slash_commands"],
    make: (n) => items(n, command),
    limit: 50,
  },
  {
    what: "slash command",
    base: v1,
    at: ["features", "slash_commands", 0, "command"],
    make: (n) => `/${chars(n - 1)}`,
    limit: 32,
  },
  {
    what: "slash command description",
    base: v1,
    at: ["features", "slash_commands", 0, "description"],
    make: chars,
    limit: 2000,
  },
  {
    what: "slash command usage_hint",
    base: v1,
    at: ["features", "slash_commands", 0, "usage_hint"],
    make: chars,
    limit: 1000,
  },
  {
    what: "unfurl_domains",
    base: v1,
    at: ["features", "unfurl_domains"],
    make: (n) => items(n, (i) => `d${i}.example.com`),
    limit: 5,
  },
  {
    what: "workflow_steps",
    base: v1,
    at: ["features", "workflow_steps"],
    make: (n) => items(n, (i) => ({ name: `n${i}`, callback_id: `c${i}` })),
    limit: 10,
  },
  {
    what: "workflow step name",
    base: v1,
    at: ["features", "workflow_steps", 0, "name"],
    make: chars,
    limit: 50,
  },
  {
    what: "workflow step callback_id",
    base: v1,
    at: ["features", "workflow_steps", 0, "callback_id"],
    make: chars,
    limit: 50,
  },
  {
    what: "redirect_urls",
    base: v1,
    at: ["oauth_config", "redirect_urls"],
    make: (n) => items(n, (i) => `https://e.example/${i}`),
    limit: 1000,
  },
  {
    what: "scopes.bot",
    base: v1,
    at: ["oauth_config", "scopes", "bot"],
    make: (n) => ["chat:write", ...items(n - 1, (i) => `s${i}`)],
    limit: 255,
  },
  {
    what: "scopes.user",
    base: v1,
    at: ["oauth_config", "scopes", "user"],
    make: (n) => ["users.profile:read", ...items(n - 1, (i) => `s${i}`)],
    limit: 255,
  },
  {
    what: "allowed_ip_address_ranges",
    base: v1,
    at: ["settings", "allowed_ip_address_ranges"],
    make: (n) => items(n, (i) => `10.0.0.${i}`),
    limit: 10,
  },
  {
    what: "bot_events",
    base: v1,
    at: ["settings", "event_subscriptions", "bot_events"],
    make: (n) => items(n, (i) => `e${i}`),
    limit: 100,
  },
  {
    what: "user_events",
    base: v1,
    at: ["settings", "event_subscriptions", "user_events"],
    make: (n) => items(n, (i) => `e${i}`),
    limit: 100,
  },
  {
    what: "function title",
    base: v2,
    at: ["functions", "find_free_slot", "title"],
    make: chars,
    limit: 255,
  },
  {
    what: "outgoing_domains",
    base: v2,
    at: ["outgoing_domains"],
    make: (n) => items(n, (i) => `d${i}.example.com`),
    limit: 10,
  },
  {
    what: "types",
    base: v2,
    at: ["types"],
    make: (n) => entries(n, () => ({ type: "string" })),
    limit: 50,
  },
  {
    what: "metadata_events properties",
    base: v2,
    at: ["metadata_events", "status_changed", "properties"],
    make: (n) => entries(n, () => ({ type: "string" })),
    limit: 50,
  },
  {
    what: "metadata_events reference examples",
    base: v2,
    at: ["metadata_events", "slot_found", "examples"],
    make: (n) => items(n, (i) => i),
    limit: 10,
  },
  {
    what: "slackbot_metadata examples",
    base: v2,
    at: ["features", "search", "slackbot_metadata", "examples"],
    make: (n) => items(n, (i) => `q${i}`),
    limit: 5,
  },
  {
    what: "client_id",
    base: v2,
    at: ["external_auth_providers", "oauth2", "outlook", "options", "client_id"],
    make: chars,
    limit: 1024,
  },
  {
    what: "provider_name",
    base: v2,
    at: ["external_auth_providers", "oauth2", "outlook", "options", "provider_name"],
    make: chars,
    limit: 255,
  },
  {
    what: "authorization_url",
    base: v2,
    at: ["external_auth_providers", "oauth2", "outlook", "options", "authorization_url"],
    make: url,
    limit: 255,
  },
  {
    what: "token_url",
    base: v2,
    at: ["external_auth_providers", "oauth2", "outlook", "options", "token_url"],
    make: url,
    limit: 255,
  },
  {
    what: "identity_config.url",
    base: v2,
    at: ["external_auth_providers", "oauth2", "outlook", "options", "identity_config", "url"],
    make: url,
    limit: 255,
  },
  {
    what: "identity_config.account_identifier",
    base: v2,
    at: [
      "external_auth_providers",
      "oauth2",
      "outlook",
      "options",
      "identity_config",
      "account_identifier",
    ],
    make: (n) => `$.${chars(n - 2)}`,
    limit: 255,
  },
  {
    what: "mcp_servers",
    base: v2,
    at: ["mcp_servers"],
    make: (n) => entries(n, () => ({ url: "https://m.example/" })),
    limit: 20,
  },
  {
    what: "mcp server url",
    base: v2,
    at: ["mcp_servers", "calendar", "url"],
    make: url,
    limit: 500,
  },
];

describe("validateManifest limits (spec 8.3)", () => {
  it.each(limits)("accepts $what at $limit and rejects it at one more", (limit) => {
    // Prepare
    const pointer = limit.pointer ?? `/${limit.at.join("/")}`;
    const atLimit = withValue(limit.base(), limit.at, limit.make(limit.limit));
    const overLimit = withValue(limit.base(), limit.at, limit.make(limit.limit + 1));
    // Act
    const atLimitProblems = validateManifest(atLimit);
    const overLimitProblems = validateManifest(overLimit);
    // Assess
    expect(atLimitProblems).toEqual([]);
    expect(overLimitProblems.map((p) => p.pointer)).toEqual([pointer]);
  });

  it("counts characters as code points, so 35 emoji make a valid name", () => {
    // Prepare: each of these is two UTF-16 code units
    const doc = withValue(v1(), ["display_information", "name"], "😀".repeat(35));
    // Act
    const problems = validateManifest(doc);
    // Assess
    expect(problems).toEqual([]);
  });

  it("rejects an identity_config url shorter than 5 characters", () => {
    // Prepare
    const at = [
      "external_auth_providers",
      "oauth2",
      "outlook",
      "options",
      "identity_config",
      "url",
    ];
    // Act
    const problems = validateManifest(withValue(v2(), at, "http"));
    // Assess
    expect(problems.map((p) => p.pointer)).toEqual([`/${at.join("/")}`, `/${at.join("/")}`]);
    expect(problems.map((p) => p.message).join(" ")).toContain("at least 5 characters");
  });

  it("accepts a function callback_id of 100 characters and rejects 101 at the key", () => {
    // Prepare
    const rename = (id: string) => {
      const doc = v2();
      const functions = doc.functions as Json;
      functions[id] = functions.find_free_slot;
      delete functions.find_free_slot;
      const steps = ((doc.workflows as Json).plan_meeting as Json).steps as Json[];
      (steps[0] as Json).function_id = `#/functions/${id}`;
      (doc.features as Json).search = { search_function_callback_id: id };
      return doc;
    };
    // Act
    const at100 = validateManifest(rename("f".repeat(100)));
    const at101 = validateManifest(rename("f".repeat(101)));
    // Assess
    expect(at100).toEqual([]);
    expect(at101.map((p) => p.pointer)).toEqual([`/functions/${"f".repeat(101)}`]);
  });
});

describe("validateManifest patterns", () => {
  it.each([
    [["display_information", "background_color"], "#abc", "#abcd"],
    [["display_information", "background_color"], "#a1B2c3", "a1b2c3"],
    [["app_directory", "direct_install_url"], "http://x.example", "ftp://x.example"],
    [["app_directory", "installation_landing_page"], "https://x.example", "x.example"],
    [["app_directory", "support_email"], "help@x.example", "help at x.example"],
    [["features", "slash_commands", 0, "command"], "/ooo", "ooo"],
    [["features", "unfurl_domains", 0], "statuspilot.example", "-bad.example"],
    [["settings", "siws_links", "initiate_uri"], "https://x.example", "http://x.example"],
    [["features", "slash_commands", 0, "url"], "https://x.example/c", "http://x.example/c"],
    [
      ["settings", "event_subscriptions", "request_url"],
      "https://x.example/e",
      "http://x.example/e",
    ],
    [["settings", "interactivity", "request_url"], "https://x.example/i", "http://x.example/i"],
    [
      ["settings", "interactivity", "message_menu_options_url"],
      "https://x.example/o",
      "http://x.example/o",
    ],
    [["settings", "allowed_ip_address_ranges", 0], "192.168.1.0/24", "300.1.1.1"],
  ] as const)("at %j accepts %s and rejects %s", (at, good, bad) => {
    // Act
    const goodProblems = validateManifest(withValue(v1(), [...at], good));
    const badProblems = validateManifest(withValue(v1(), [...at], bad));
    // Assess
    expect(goodProblems).toEqual([]);
    expect(badProblems.map((p) => p.pointer)).toEqual([`/${at.join("/")}`]);
  });

  it.each([
    ["calendar.example.com", true],
    ["a.b", true],
    ["Example.COM", true],
    [".example.com", false],
    ["-example.com", false],
    ["example.com-", false],
    ["exa mple.com", false],
  ])("outgoing domain %s is accepted: %s (the spec's pattern)", (domain, ok) => {
    // Act
    const problems = validateManifest(withValue(v2(), ["outgoing_domains", 0], domain));
    // Assess
    expect(problems.length === 0).toBe(ok);
  });

  it.each([
    ["#/types/slot", true],
    ["svc#/events/status_changed", true],
    ["slack#/types/user_id", false],
    ["#/types", false],
  ])("metadata event reference %s is accepted: %s (the spec's pattern)", (type, ok) => {
    // Act
    const problems = validateManifest(
      withValue(v2(), ["metadata_events", "slot_found", "type"], type),
    );
    // Assess
    expect(problems.length === 0).toBe(ok);
  });

  it("accepts an account_identifier in the spec's https form and in the platform's $. form", () => {
    // Prepare
    const at = [
      "external_auth_providers",
      "oauth2",
      "outlook",
      "options",
      "identity_config",
      "account_identifier",
    ];
    // Act
    const https = validateManifest(withValue(v2(), at, "https://graph.microsoft.com/me"));
    const jsonPath = validateManifest(withValue(v2(), at, "$.mail"));
    const neither = validateManifest(withValue(v2(), at, "mail"));
    // Assess
    expect(https).toEqual([]);
    expect(jsonPath).toEqual([]);
    expect(neither.map((p) => p.pointer)).toEqual([`/${at.join("/")}`]);
  });
});

describe("validateManifest required members", () => {
  it("requires display_information and its name", () => {
    // Act
    const noGroup = validateManifest(withValue(v1(), ["display_information"], undefined));
    const noName = validateManifest(withValue(v1(), ["display_information", "name"], undefined));
    // Assess
    expect(noGroup).toEqual([
      { message: "display_information is required", pointer: "/display_information" },
    ]);
    expect(noName).toEqual([{ message: "name is required", pointer: "/display_information/name" }]);
  });

  it.each([
    ["app_directory", "installation_landing_page"],
    ["app_directory", "privacy_policy_url"],
    ["app_directory", "support_url"],
    ["app_directory", "support_email"],
    ["app_directory", "supported_languages"],
    ["app_directory", "pricing"],
    ["features", "bot_user", "display_name"],
    ["features", "shortcuts", 0, "callback_id"],
    ["features", "slash_commands", 0, "description"],
    ["settings", "interactivity", "is_enabled"],
    ["settings", "event_subscriptions", "metadata_subscriptions", 0, "app_id"],
  ])("requires %s/%s… when its group is included", (...at) => {
    // Act
    const problems = validateManifest(withValue(v1(), at, undefined));
    // Assess
    expect(problems.map((p) => p.pointer)).toContain(`/${at.join("/")}`);
  });

  it("does not require an optional group's members when the group is absent", () => {
    // Prepare
    const doc = withValue(v1(), ["app_directory"], undefined);
    // Act
    const problems = validateManifest(doc);
    // Assess
    expect(problems).toEqual([]);
  });

  it.each([
    ["features", "agent_view", "agent_description"],
    ["features", "assistant_view", "assistant_description"],
    ["features", "search", "search_function_callback_id"],
    ["workflows", "plan_meeting", "steps"],
    ["datastores", "slots", "primary_key"],
    ["types", "slot", "type"],
    ["external_auth_providers", "oauth2", "google", "options", "scope"],
    ["mcp_servers", "calendar", "url"],
  ])("requires %s/%s… in a version 2 manifest", (...at) => {
    // Act
    const problems = validateManifest(withValue(v2(), at, undefined));
    // Assess
    expect(problems.map((p) => p.pointer)).toContain(`/${at.join("/")}`);
  });
});

describe("validateManifest semantic rules", () => {
  it("needs a request_url or Socket Mode for event subscriptions", () => {
    // Prepare
    const noUrl = withValue(v1(), ["settings", "event_subscriptions", "request_url"], undefined);
    // Act
    const without = validateManifest(noUrl);
    const withSocket = validateManifest(
      withValue(noUrl, ["settings", "socket_mode_enabled"], true),
    );
    // Assess
    expect(without.map((p) => p.pointer)).toEqual(["/settings/event_subscriptions"]);
    expect(withSocket).toEqual([]);
  });

  it("needs a request_url or Socket Mode for enabled interactivity, but not for disabled", () => {
    // Prepare
    const noUrl = withValue(v1(), ["settings", "interactivity", "request_url"], undefined);
    // Act
    const enabled = validateManifest(noUrl);
    const disabled = validateManifest(
      withValue(noUrl, ["settings", "interactivity", "is_enabled"], false),
    );
    const socket = validateManifest(withValue(noUrl, ["settings", "socket_mode_enabled"], true));
    // Assess
    expect(enabled.map((p) => p.pointer)).toEqual(["/settings/interactivity"]);
    expect(disabled).toEqual([]);
    expect(socket).toEqual([]);
  });

  it("reports each optional scope missing from bot or user at its index", () => {
    // Prepare
    let doc = withValue(
      v1(),
      ["oauth_config", "scopes", "bot_optional"],
      ["chat:write", "files:read"],
    );
    doc = withValue(doc, ["oauth_config", "scopes", "user_optional"], ["users:read"]);
    // Act
    const problems = validateManifest(doc);
    // Assess
    expect(problems.map((p) => p.pointer)).toEqual([
      "/oauth_config/scopes/bot_optional/1",
      "/oauth_config/scopes/user_optional/0",
    ]);
  });

  it("needs function_runtime and org_deploy_enabled for functions", () => {
    // Prepare: the v2 functions in a v1 manifest's flat parameter shape
    const doc = withValue(v1(), ["functions"], {
      notify: {
        title: "Notify",
        description: "Sends a note",
        input_parameters: { user: { type: "svc#/types/user_id", is_required: true } },
        output_parameters: {},
      },
    });
    // Act
    const missing = validateManifest(doc);
    let fixed = withValue(doc, ["settings", "function_runtime"], "remote");
    fixed = withValue(fixed, ["settings", "org_deploy_enabled"], true);
    const complete = validateManifest(fixed);
    // Assess
    expect(missing.map((p) => p.pointer)).toEqual([
      "/settings/function_runtime",
      "/settings/org_deploy_enabled",
    ]);
    expect(complete).toEqual([]);
  });

  it("defaults function_runtime to svc in a version 2 manifest, as the official fixtures assume", () => {
    // Prepare: spec says function_runtime is required with functions; the platform's own v2
    // fixtures omit it, and rejecting what the platform accepts would be a bug
    const doc = withValue(v2(), ["settings", "function_runtime"], undefined);
    // Act
    const problems = validateManifest(doc);
    // Assess: functions and outgoing_domains both pass with the implied svc runtime
    expect(problems).toEqual([]);
  });

  it("needs org_deploy_enabled for functions in a version 2 manifest too", () => {
    // Act
    const problems = validateManifest(withValue(v2(), ["settings", "org_deploy_enabled"], false));
    // Assess
    expect(problems.map((p) => p.pointer)).toEqual(["/settings/org_deploy_enabled"]);
  });

  it("needs function_runtime svc for outgoing_domains, in either spelling", () => {
    // Act
    const remote = validateManifest(withValue(v2(), ["settings", "function_runtime"], "remote"));
    const svc = validateManifest(withValue(v2(), ["settings", "function_runtime"], "svc"));
    const slack = validateManifest(withValue(v2(), ["settings", "function_runtime"], "slack"));
    const v1Domains = validateManifest(withValue(v1(), ["outgoing_domains"], ["a.example"]));
    const v1Empty = validateManifest(withValue(v1(), ["outgoing_domains"], []));
    // Assess
    expect(remote.map((p) => p.pointer)).toEqual(["/outgoing_domains"]);
    expect(svc).toEqual([]);
    expect(slack).toEqual([]);
    expect(v1Domains.map((p) => p.pointer)).toEqual(["/outgoing_domains"]);
    expect(v1Empty).toEqual([]);
  });

  it.each(["provider_name", "authorization_url", "token_url", "identity_config"])(
    "needs options.%s for a CUSTOM provider",
    (member) => {
      // Prepare
      const at = ["external_auth_providers", "oauth2", "outlook", "options", member];
      // Act
      const problems = validateManifest(withValue(v2(), at, undefined));
      // Assess
      expect(problems.map((p) => p.pointer)).toEqual([`/${at.join("/")}`]);
    },
  );

  it("accepts SVC_PROVIDED and SLACK_PROVIDED providers with only client_id and scope", () => {
    // Prepare
    const at = ["external_auth_providers", "oauth2", "google", "provider_type"];
    // Act
    const svc = validateManifest(withValue(v2(), at, "SVC_PROVIDED"));
    const extra = validateManifest(
      withValue(
        v2(),
        ["external_auth_providers", "oauth2", "google", "options", "token_url"],
        "https://t.example",
      ),
    );
    // Assess
    expect(svc).toEqual([]);
    expect(extra.map((p) => p.pointer)).toEqual([
      "/external_auth_providers/oauth2/google/options/token_url",
    ]);
  });

  it("rejects an mcp server whose auth_provider_key names no provider", () => {
    // Act
    const problems = validateManifest(
      withValue(v2(), ["mcp_servers", "calendar", "auth_provider_key"], "nope"),
    );
    // Assess
    expect(problems.map((p) => p.pointer)).toEqual(["/mcp_servers/calendar/auth_provider_key"]);
  });

  it("accepts mcp auth_type in both spellings and rejects others", () => {
    // Prepare
    const at = ["mcp_servers", "calendar", "auth_type"];
    // Act
    const svc = validateManifest(withValue(v2(), at, "svc_identity_auth"));
    const slack = validateManifest(withValue(v2(), at, "slack_identity_auth"));
    const other = validateManifest(withValue(v2(), at, "password"));
    // Assess
    expect(svc).toEqual([]);
    expect(slack).toEqual([]);
    expect(other.map((p) => p.pointer)).toEqual(["/mcp_servers/calendar/auth_type"]);
  });

  it("rejects a step that calls an undeclared function of the app", () => {
    // Prepare
    const at = ["workflows", "plan_meeting", "steps", 0, "function_id"];
    // Act
    const problems = validateManifest(withValue(v2(), at, "#/functions/missing"));
    // Assess
    expect(problems.map((p) => p.pointer)).toEqual([`/${at.join("/")}`]);
  });
});

describe("validateManifest versions", () => {
  const v1Parameters = { user: { type: "string", is_required: true, title: "User" } };
  const v2Parameters = {
    properties: { user: { type: "string", title: "User" } },
    required: ["user"],
  };

  it("takes v1 parameters as a map with is_required and v2 as properties plus required", () => {
    // Act
    const v2InV2 = validateManifest(
      withValue(v2(), ["functions", "find_free_slot", "input_parameters"], v2Parameters),
    );
    const v1InV1 = validateManifest(
      withValue(
        withValue(v2(), ["_metadata", "major_version"], 1),
        ["functions", "find_free_slot", "input_parameters"],
        v1Parameters,
      ),
    );
    // Assess
    expect(v2InV2).toEqual([]);
    // The v2 workflow and output parameters of the fixture are invalid in v1, the v1 inputs are not.
    expect(v1InV1.map((p) => p.pointer).filter((p) => p.includes("find_free_slot/input"))).toEqual(
      [],
    );
  });

  it("rejects v1 parameters in a v2 manifest", () => {
    // Act
    const problems = validateManifest(
      withValue(v2(), ["functions", "find_free_slot", "input_parameters"], v1Parameters),
    );
    // Assess
    expect(problems.map((p) => p.pointer)).toEqual([
      "/functions/find_free_slot/input_parameters/properties",
      "/functions/find_free_slot/input_parameters/user",
    ]);
  });

  it("rejects v2 parameters in a v1 manifest", () => {
    // Prepare
    const doc = withValue(v1(), ["functions"], {
      notify: {
        title: "t",
        description: "d",
        input_parameters: v2Parameters,
        output_parameters: {},
      },
    });
    // Act
    const problems = validateManifest(withValue(doc, ["settings", "function_runtime"], "remote"));
    // Assess
    expect(problems.map((p) => p.pointer)).toEqual(
      expect.arrayContaining([
        "/functions/notify/input_parameters/properties/type",
        "/functions/notify/input_parameters/required",
      ]),
    );
  });

  it("rejects is_required inside v2 properties", () => {
    // Prepare
    const at = [
      "functions",
      "find_free_slot",
      "input_parameters",
      "properties",
      "user",
      "is_required",
    ];
    // Act
    const problems = validateManifest(withValue(v2(), at, true));
    // Assess
    expect(problems).toEqual([
      { message: expect.stringContaining("version 1"), pointer: `/${at.join("/")}` },
    ]);
  });

  it("rejects a v2 required name that is not a property", () => {
    // Act
    const problems = validateManifest(
      withValue(
        v2(),
        ["functions", "find_free_slot", "input_parameters", "required"],
        ["user", "ghost"],
      ),
    );
    // Assess
    expect(problems.map((p) => p.pointer)).toEqual([
      "/functions/find_free_slot/input_parameters/required/1",
    ]);
  });

  it("accepts a step type only in version 2", () => {
    // Prepare
    const stepType = ["workflows", "w", "steps", 0, "type"];
    const workflow = {
      title: "W",
      description: "d",
      steps: [{ id: "0", function_id: "svc#/functions/send_message", inputs: {}, type: "switch" }],
    };
    const inV1 = withValue(v1(), ["workflows"], { w: workflow });
    const inV2 = withValue(v2(), ["workflows"], { w: workflow });
    // Act
    const v1Problems = validateManifest(inV1);
    const v2Problems = validateManifest(inV2);
    const badType = validateManifest(withValue(inV2, stepType, "loop"));
    // Assess
    expect(v1Problems).toEqual([
      {
        message: expect.stringContaining("only in manifest version 2"),
        pointer: `/${stepType.join("/")}`,
      },
    ]);
    expect(v2Problems).toEqual([]);
    expect(badType.map((p) => p.pointer)).toEqual([`/${stepType.join("/")}`]);
  });

  it("treats a manifest without _metadata as version 1", () => {
    // Prepare
    const doc = withValue(v1(), ["_metadata"], undefined);
    const withStepType = withValue(doc, ["workflows"], {
      w: {
        title: "W",
        description: "d",
        steps: [{ id: "0", function_id: "f", inputs: {}, type: "function" }],
      },
    });
    // Act
    const problems = validateManifest(withStepType);
    // Assess
    expect(problems.map((p) => p.pointer)).toEqual(["/workflows/w/steps/0/type"]);
  });

  it("rejects a major_version other than 1 or 2", () => {
    // Act
    const problems = validateManifest(withValue(v1(), ["_metadata", "major_version"], 3));
    // Assess
    expect(problems.map((p) => p.pointer)).toEqual(["/_metadata/major_version"]);
  });
});

describe("validateManifest closed objects", () => {
  it.each([
    ["surprise"],
    ["display_information", "surprise"],
    ["features", "app_home", "surprise"],
    ["features", "slash_commands", 0, "surprise"],
    ["oauth_config", "scopes", "surprise"],
    ["settings", "interactivity", "surprise"],
    ["compliance", "surprise"],
  ])("reports an unknown member at %s…", (...at) => {
    // Act
    const problems = validateManifest(withValue(v1(), at, true));
    // Assess
    expect(problems).toEqual([
      { message: `unknown member ${at[at.length - 1]}`, pointer: `/${at.join("/")}` },
    ]);
  });

  it.each([
    ["workflows", "plan_meeting", "steps", 0, "inputs", "anything"],
    [
      "external_auth_providers",
      "oauth2",
      "outlook",
      "options",
      "authorization_url_extras",
      "anything",
    ],
    [
      "external_auth_providers",
      "oauth2",
      "outlook",
      "options",
      "identity_config",
      "headers",
      "anything",
    ],
    [
      "external_auth_providers",
      "oauth2",
      "outlook",
      "options",
      "identity_config",
      "body",
      "anything",
    ],
    ["mcp_servers", "calendar", "headers", "X-Anything"],
  ])("accepts any member inside the free-form object %s…", (...at) => {
    // Act
    const problems = validateManifest(withValue(v2(), at, "value"));
    // Assess
    expect(problems).toEqual([]);
  });

  it("escapes ~ and / in pointers as RFC 6901 requires", () => {
    // Act
    const problems = validateManifest(withValue(v2(), ["types", "a/b~c"], { type: 5 }));
    // Assess
    expect(problems.map((p) => p.pointer)).toEqual(["/types/a~1b~0c/type"]);
  });
});

describe("validateManifest input", () => {
  it("returns every problem of a manifest at once", () => {
    // Act
    const problems = validateManifest(load("many-problems.json"));
    // Assess
    expect(problems.map((p) => p.pointer).sort()).toEqual(
      [
        "/display_information/name",
        "/features/slash_commands/0/command",
        "/settings/surprise",
        "/settings/event_subscriptions",
        "/settings/interactivity",
        "/oauth_config/scopes/bot_optional/0",
      ].sort(),
    );
    for (const problem of problems) expect(problem.message.length).toBeGreaterThan(0);
  });

  it("parses YAML and JSON to the same document", () => {
    // Prepare
    const yaml =
      "display_information:\n  name: Statuspilot\nsettings:\n  socket_mode_enabled: true\n";
    const json =
      '{"display_information":{"name":"Statuspilot"},"settings":{"socket_mode_enabled":true}}';
    // Act
    const fromYaml = parseManifestText(yaml);
    const fromJson = parseManifestText(json);
    // Assess
    expect(fromYaml).toEqual(fromJson);
    expect(validateManifest(fromYaml)).toEqual([]);
  });

  it.each([
    ["broken JSON", readFileSync(path.join(fixturesDir, "manifests", "unparseable.txt"), "utf8")],
    ["an empty document", ""],
    ["duplicate YAML keys", "a: 1\na: 2\n"],
  ])("throws a one-line ManifestParseError for %s", (_what, text) => {
    // Act
    const act = () => parseManifestText(text);
    // Assess
    expect(act).toThrow(ManifestParseError);
    try {
      act();
    } catch (error: unknown) {
      expect(error instanceof Error && error.message.includes("\n")).toBe(false);
    }
  });

  it.each([null, [], "text", 42])("rejects a document that is not an object (%j)", (doc) => {
    // Act
    const problems = validateManifest(doc);
    // Assess
    expect(problems).toEqual([
      { message: expect.stringContaining("must be an object"), pointer: "" },
    ]);
  });

  it("reports a wrong type with the expected and the actual type", () => {
    // Act
    const problems = validateManifest(withValue(v1(), ["settings", "socket_mode_enabled"], "yes"));
    // Assess
    expect(problems).toEqual([
      {
        message: "socket_mode_enabled must be a boolean, not string",
        pointer: "/settings/socket_mode_enabled",
      },
    ]);
  });
});

describe("validateManifest workflow parameters in a version 1 manifest", () => {
  it.each(["v1-workflow-v2-params.json", "v1-workflow-flat-params.json"])(
    "accepts %s: the spec's version 2 shape and the version 1 flat map",
    (file) => {
      // Act
      const problems = validateManifest(load(file));
      // Assess
      expect(problems).toEqual([]);
    },
  );

  it("checks the version 2 shape's required names against its properties", () => {
    // Prepare
    const at = ["workflows", "announce_status", "input_parameters", "required"];
    const doc = withValue(load("v1-workflow-v2-params.json"), at, ["channel", "nope"]);
    // Act
    const problems = validateManifest(doc);
    // Assess
    expect(problems).toEqual([
      {
        message: "required parameter nope is not in properties",
        pointer: "/workflows/announce_status/input_parameters/required/1",
      },
    ]);
  });

  it("checks each parameter of the flat map, with pointers into the manifest", () => {
    // Prepare
    const at = ["workflows", "announce_status", "input_parameters", "channel", "is_required"];
    const doc = withValue(load("v1-workflow-flat-params.json"), at, "yes");
    // Act
    const problems = validateManifest(doc);
    // Assess
    expect(problems).toEqual([
      {
        message: "is_required must be a boolean, not string",
        pointer: "/workflows/announce_status/input_parameters/channel/is_required",
      },
    ]);
  });

  it("keeps version 1 function parameters to the flat map", () => {
    // Prepare
    const doc = withValue(load("v1-workflow-v2-params.json"), ["functions"], {
      find_slot: {
        title: "Find slot",
        description: "d",
        input_parameters: { properties: { a: { type: "string" } }, required: ["a"] },
        output_parameters: {},
      },
    });
    doc.settings = { function_runtime: "remote", org_deploy_enabled: true };
    // Act
    const problems = validateManifest(doc);
    // Assess
    expect(problems.map((p) => p.pointer)).toContain(
      "/functions/find_slot/input_parameters/required",
    );
  });
});
