import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Context,
} from "aws-lambda";
import fc from "fast-check";
import { signV0 } from "../../../lib/webhooks";
import { NOW_MS, NOW_S } from "./stack";

/** What a fuzz case sends: the parts of an API Gateway v2 request a caller controls. */
export interface FuzzRequest {
  method: string;
  /** Route key path, e.g. `/admin/users/{team}/{user}/ooo`. */
  route: string;
  rawPath: string;
  headers: Record<string, string>;
  query?: Record<string, string>;
  params?: Record<string, string>;
  body?: string;
  isBase64Encoded?: boolean;
  /** API Gateway v2 hands a request's cookies over in this list, not as a `cookie` header. */
  cookies?: string[];
}

/** An HTTP API (payload 2.0) event, shaped like test/fixtures/events/*.json. */
export function apiEvent(req: FuzzRequest): APIGatewayProxyEventV2 {
  const rawQueryString = new URLSearchParams(req.query ?? {}).toString();
  return {
    version: "2.0",
    routeKey: `${req.method} ${req.route}`,
    rawPath: req.rawPath,
    rawQueryString,
    headers: req.headers,
    ...(req.query ? { queryStringParameters: req.query } : {}),
    ...(req.params ? { pathParameters: req.params } : {}),
    ...(req.cookies ? { cookies: req.cookies } : {}),
    requestContext: {
      accountId: "123456789012",
      apiId: "abc123",
      domainName: "abc123.execute-api.eu-west-1.amazonaws.com",
      domainPrefix: "abc123",
      http: {
        method: req.method,
        path: req.rawPath,
        protocol: "HTTP/1.1",
        sourceIp: "198.51.100.7",
        userAgent: "fuzz",
      },
      requestId: "FuzzRequestId0=",
      routeKey: `${req.method} ${req.route}`,
      stage: "$default",
      time: "01/Jan/2026:12:00:00 +0000",
      timeEpoch: NOW_MS,
    },
    ...(req.body !== undefined ? { body: req.body } : {}),
    isBase64Encoded: req.isBase64Encoded ?? false,
  };
}

const context: Context = {
  callbackWaitsForEmptyEventLoop: false,
  functionName: "statuspilot-fuzz",
  functionVersion: "$LATEST",
  invokedFunctionArn: "arn:aws:lambda:eu-west-1:123456789012:function:statuspilot-fuzz",
  memoryLimitInMB: "512",
  awsRequestId: "00000000-0000-4000-8000-000000000000",
  logGroupName: "/aws/lambda/statuspilot-fuzz",
  logStreamName: "2026/01/01/[$LATEST]fuzz",
  getRemainingTimeInMillis: () => 10_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
};

// biome-ignore lint/complexity/noBannedTypes: routes.ts hands back whatever middy built.
export type AnyHandler = Function;

/** Invokes a Lambda handler the way the runtime does; a throw counts as a 5xx. */
export async function invoke(
  handler: AnyHandler,
  event: unknown,
): Promise<APIGatewayProxyStructuredResultV2> {
  try {
    return (await handler(event, context)) as APIGatewayProxyStructuredResultV2;
  } catch (error: unknown) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { statusCode: 502, body: JSON.stringify({ error: "handler threw", message }) };
  }
}

// ---- signatures -------------------------------------------------------------------------

/** How a request's v0 signature headers are (mis)made. */
export type SignatureFault =
  | { kind: "missing-timestamp" }
  | { kind: "missing-signature" }
  | { kind: "missing-both" }
  | { kind: "wrong-secret"; secret: string }
  | { kind: "other-body"; body: string }
  | { kind: "stale"; offsetS: number }
  | { kind: "malformed-timestamp"; timestamp: string }
  | { kind: "malformed-signature"; signature: string }
  | { kind: "upper-hex" }
  | { kind: "truncated"; keep: number };

export const signatureFault: fc.Arbitrary<SignatureFault> = fc.oneof(
  fc.constant({ kind: "missing-timestamp" } as const),
  fc.constant({ kind: "missing-signature" } as const),
  fc.constant({ kind: "missing-both" } as const),
  fc.record({ kind: fc.constant("wrong-secret" as const), secret: fc.string({ maxLength: 40 }) }),
  fc.record({ kind: fc.constant("other-body" as const), body: fc.string({ maxLength: 200 }) }),
  fc.record({
    kind: fc.constant("stale" as const),
    // Just past the 5-minute window, up to a day away, in either direction.
    offsetS: fc.integer({ min: 301, max: 86_400 }).chain((s) => fc.constantFrom(s, -s, 360, -360)),
  }),
  fc.record({
    kind: fc.constant("malformed-timestamp" as const),
    timestamp: fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.constantFrom("", "-1", "1e9", " 1767268800", "1767268800.5", "0x69563e00", "9".repeat(40)),
    ),
  }),
  fc.record({
    kind: fc.constant("malformed-signature" as const),
    signature: fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.constantFrom("", "v0=", "v1=00", `v0=${"g".repeat(64)}`, `v0=${"0".repeat(63)}`),
    ),
  }),
  fc.constant({ kind: "upper-hex" } as const),
  fc.record({ kind: fc.constant("truncated" as const), keep: fc.integer({ min: 0, max: 66 }) }),
);

/** v0 signature headers for `body`, correct unless a fault says otherwise. */
export function signatureHeaders(
  names: { timestamp: string; signature: string },
  secret: string,
  body: string,
  fault?: SignatureFault,
): Record<string, string> {
  let ts = String(NOW_S);
  let sig = signV0(secret, ts, body);
  switch (fault?.kind) {
    case undefined:
      break;
    case "missing-timestamp":
      return { [names.signature]: sig };
    case "missing-signature":
      return { [names.timestamp]: ts };
    case "missing-both":
      return {};
    case "wrong-secret":
      sig = signV0(fault.secret === secret ? `${secret}x` : fault.secret, ts, body);
      break;
    case "other-body":
      sig = signV0(secret, ts, fault.body === body ? `${body} ` : fault.body);
      break;
    case "stale":
      ts = String(NOW_S + fault.offsetS);
      sig = signV0(secret, ts, body);
      break;
    case "malformed-timestamp":
      ts = fault.timestamp === String(NOW_S) ? "" : fault.timestamp;
      break;
    case "malformed-signature":
      sig = fault.signature;
      break;
    case "upper-hex":
      sig = `v0=${sig.slice(3).toUpperCase()}`;
      break;
    case "truncated":
      sig = sig.slice(0, Math.min(fault.keep, sig.length - 1));
      break;
  }
  return { [names.timestamp]: ts, [names.signature]: sig };
}

// ---- bodies -----------------------------------------------------------------------------

/** A body as the gateway delivers it: text, or base64 with the flag set (or a lie about it). */
export interface WireBody {
  body: string | undefined;
  isBase64Encoded: boolean;
  /** What the handler decodes (the signed text); undefined when no body is sent. */
  decoded: string | undefined;
}

/** A body sent as it is, not base64-encoded. */
export const plainWire = (text: string): WireBody => ({
  body: text,
  isBase64Encoded: false,
  decoded: text,
});

/** Deep nesting that a recursive parser or validator would choke on. */
const deepJson = fc
  .integer({ min: 1_000, max: 20_000 })
  .chain((depth) =>
    fc.constantFrom(
      "[".repeat(depth) + "]".repeat(depth),
      `${'{"type":'.repeat(depth)}1${"}".repeat(depth)}`,
      `{"type":"event_callback","event":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`,
    ),
  );

/** Bodies over 1 MB, built lazily from a length so shrinking stays cheap. */
const hugeBody = fc
  .integer({ min: 1_048_577, max: 1_300_000 })
  .chain((n) =>
    fc.constantFrom(
      "x".repeat(n),
      `{"type":"${"t".repeat(n)}"}`,
      `{"value":[${'{"subscriptionId":"nope"},'.repeat(Math.ceil(n / 26))}{}]}`,
      `team_id=T0DEMO&user_id=U001&command=%2Fooo&text=${"a".repeat(n)}`,
    ),
  );

const bytes = fc.uint8Array({ maxLength: 400 });

/** Random bytes that are not valid UTF-8 (a lone continuation byte somewhere). */
const invalidUtf8 = bytes.map((b) =>
  Buffer.concat([Buffer.from(b), Buffer.from([0xc3, 0x28, 0x80])]),
);

/** Any body at all, mostly malformed. */
export const garbageBody: fc.Arbitrary<WireBody> = fc.oneof(
  fc.string({ maxLength: 300 }).map(plainWire),
  fc.string({ unit: "binary", maxLength: 300 }).map(plainWire),
  fc.jsonValue({ maxDepth: 4 }).map((v) => plainWire(JSON.stringify(v) ?? "null")),
  fc
    .constantFrom("", "{", "}", "null", "[]", "{}", '""', "0", "true", '{"type":null}')
    .map(plainWire),
  invalidUtf8.map((b) => ({
    body: b.toString("base64"),
    isBase64Encoded: true,
    decoded: b.toString("utf8"),
  })),
  invalidUtf8.map((b) => plainWire(b.toString("latin1"))),
  // Flagged as base64 but not base64 at all.
  fc.string({ minLength: 1, maxLength: 200 }).map((s) => ({
    body: `%%${s}`,
    isBase64Encoded: true,
    decoded: Buffer.from(`%%${s}`, "base64").toString("utf8"),
  })),
  fc.constant<WireBody>({ body: undefined, isBase64Encoded: false, decoded: undefined }),
  deepJson.map(plainWire),
  hugeBody.map(plainWire),
);

/** Content types a sender might wrongly claim. */
export const contentType = fc.constantFrom(
  undefined,
  "application/json",
  "application/x-www-form-urlencoded",
  "text/plain; charset=utf-8",
  "application/octet-stream",
  "multipart/form-data; boundary=----x",
  "application/json; charset=latin1",
  "",
  "application/json, application/json",
);

/** Headers nobody asked for, some of which look like ours under other cases. */
export const noiseHeaders = fc.dictionary(
  fc.oneof(
    fc.string({ minLength: 1, maxLength: 20 }),
    fc.constantFrom(
      "X-Svc-Signature",
      "X-SVC-REQUEST-TIMESTAMP",
      "x-svc-retry-num",
      "X-Goog-Channel-Token",
      "X-Api-Key",
      "content-length",
      "transfer-encoding",
    ),
  ),
  fc.string({ maxLength: 80 }),
  { maxKeys: 4 },
);

/**
 * Ids longer than a DynamoDB partition key may be (2048 bytes). Kept out of `pathValue` so
 * each endpoint has its own named case proving they are refused before the store.
 */
export const OVERSIZED_IDS = ["b".repeat(2049), "c".repeat(70_000)] as const;

/** An out-of-office id longer than a DynamoDB sort key may be (1024 bytes). */
export const OVERSIZED_ENTRY_ID = "a".repeat(1025);

/** Path parameter values: ordinary, empty, long, key-separator-laden and odd unicode. */
export const pathValue = fc.oneof(
  fc.string({ minLength: 1, maxLength: 30 }),
  fc.constantFrom(
    "",
    " ",
    "#",
    "T0DEMO#U001",
    "USER#T0DEMO",
    "../..",
    "%00",
    "\u0000",
    "\uD800",
    "😀",
    "a".repeat(1000),
  ),
);

/** Headers merged so that later ones win, as the gateway's parser would. */
export function headers(
  ...parts: Array<Record<string, string | undefined>>
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of parts) {
    for (const [k, v] of Object.entries(part)) if (v !== undefined) out[k] = v;
  }
  return out;
}

// ---- calendar sources -------------------------------------------------------------------

const byte = fc.integer({ min: 0, max: 255 });
const hex16 = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));

/**
 * Hosts inside the account's network or this machine, in every range a deployed Statuspilot
 * refuses, as IP literals (in several spellings) and local names.
 */
export const privateFeedHost: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(byte, byte, byte).map(([a, b, c]) => `127.${a}.${b}.${c}`),
  fc.tuple(byte, byte, byte).map(([a, b, c]) => `10.${a}.${b}.${c}`),
  fc.tuple(fc.integer({ min: 16, max: 31 }), byte, byte).map(([a, b, c]) => `172.${a}.${b}.${c}`),
  fc.tuple(byte, byte).map(([a, b]) => `192.168.${a}.${b}`),
  fc.tuple(byte, byte).map(([a, b]) => `169.254.${a}.${b}`),
  fc.tuple(byte, byte, byte).map(([a, b, c]) => `0.${a}.${b}.${c}`),
  fc
    .tuple(fc.integer({ min: 0xfc00, max: 0xfdff }), hex16, hex16)
    .map(([a, b, c]) => `[${a.toString(16)}::${b}:${c}]`),
  fc
    .tuple(fc.integer({ min: 0xfe80, max: 0xfebf }), hex16)
    .map(([a, b]) => `[${a.toString(16)}::${b}]`),
  fc.tuple(byte, byte).map(([a, b]) => `[::ffff:10.0.${a}.${b}]`),
  fc
    .string({ unit: fc.constantFrom(..."abcdefghij-"), minLength: 1, maxLength: 12 })
    .map((l) => `${l}.localhost`),
  fc.constantFrom(
    "169.254.169.254",
    "[fd00:ec2::254]",
    "[::1]",
    "[::]",
    "0.0.0.0",
    "localhost",
    "LocalHost.",
    "2130706433",
    "0x7f000001",
    "0177.0.0.1",
    "127.1",
    "[::ffff:127.0.0.1]",
  ),
);

/** Feed URLs that can never be synced (not http(s)), or would be fetched inside on AWS. */
export const unsyncableFeedUrl: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom("http", "https", "HTTP"),
      privateFeedHost,
      fc.constantFrom("", ":80", ":8080", ":443"),
      fc.constantFrom("/", "/cal.ics", "/latest/meta-data/", "/a?b=c#d"),
    )
    .map(([scheme, host, port, path]) => `${scheme}://${host}${port}${path}`),
  fc
    .tuple(
      fc.constantFrom("file", "ftp", "webcal", "gopher", "ws", "wss", "ldap", "dict", "sftp"),
      fc.constantFrom("://calendar.example/cal.ics", ":///etc/passwd", "://"),
    )
    .map(([scheme, rest]) => `${scheme}${rest}`),
  fc.constantFrom(
    "javascript:alert(1)",
    "data:text/calendar,BEGIN:VCALENDAR",
    "mailto:cal@calendar.example",
    "calendar.example/cal.ics",
    "//calendar.example/cal.ics",
    "",
  ),
);

/** Source ids with a key separator (`#`) or a path separator (`/`) somewhere in them. */
export const unsyncableSourceId: fc.Arbitrary<string> = fc
  .tuple(
    fc.string({ maxLength: 20 }),
    fc.constantFrom("#", "/", "\u0000", "\n"),
    fc.string({ maxLength: 20 }),
  )
  .map(([before, bad, after]) => `${before}${bad}${after}`);

/**
 * Generic hook ids that, once API Gateway decodes the path, end like another hook's route:
 * a router on the path suffix would answer them as that hook.
 */
export const smuggledHookId: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      fc.string({ maxLength: 12 }),
      fc.constantFrom("/hooks/graph", "/hooks/google", "/../graph", "/hooks/generic/office"),
    )
    .map(([prefix, suffix]) => `${prefix}${suffix}`),
  fc.constantFrom("x/hooks/graph", "/hooks/graph", "hooks/google", "a/b/hooks/graph"),
);
