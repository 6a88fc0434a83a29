import { randomUUID } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { LOCAL_ACCOUNT_ID } from "./lambda-context";

export type HttpMethod = "GET" | "POST" | "DELETE" | "PUT" | "PATCH" | "HEAD" | "OPTIONS";

/** What the local gateway needs of a route: the API Gateway route key's parts. */
export interface RouteSpec {
  method: string;
  /** API Gateway v2 route path: literal segments, `{name}` and a final greedy `{name+}`. */
  path: string;
}

export interface RouteMatch<R extends RouteSpec> {
  route: R;
  pathParameters: Record<string, string>;
}

type Segment = { kind: "literal"; text: string } | { kind: "param"; name: string; greedy: boolean };

const parseTemplate = (path: string): Segment[] =>
  path
    .split("/")
    .filter((s) => s !== "")
    .map((s) => {
      const param = /^\{([A-Za-z0-9_]+)(\+?)\}$/.exec(s);
      return param?.[1]
        ? { kind: "param", name: param[1], greedy: param[2] === "+" }
        : { kind: "literal", text: s };
    });

/** Decodes one path segment; a malformed escape stays as sent rather than failing the request. */
const decodeSegment = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

const matchPath = (template: Segment[], segments: string[]): Record<string, string> | undefined => {
  const params: Record<string, string> = {};
  for (let i = 0; i < template.length; i++) {
    const t = template[i];
    if (!t) return undefined;
    if (t.kind === "param" && t.greedy) {
      const rest = segments.slice(i);
      if (rest.length === 0) return undefined;
      params[t.name] = rest.map(decodeSegment).join("/");
      return params;
    }
    const s = segments[i];
    if (s === undefined || s === "") return undefined;
    if (t.kind === "literal") {
      if (t.text !== s) return undefined;
    } else {
      params[t.name] = decodeSegment(s);
    }
  }
  return segments.length === template.length ? params : undefined;
};

/** API Gateway's precedence: an exact route wins over one with parameters, greedy comes last. */
const specificity = (template: Segment[]): number =>
  template.reduce(
    (score, s) => score * 3 + (s.kind === "literal" ? 2 : s.greedy ? 0 : 1),
    template.length,
  );

/**
 * The path of a request target exactly as sent, before any URL normalisation. Routes are matched
 * on it segment by segment, so `%2F` and a raw `\` stay inside their path parameter and `%2e%2e`
 * is a parameter like any other; a WHATWG URL would make `\` a separator and resolve `%2e%2e`,
 * and the matched route would disagree with the event's `rawPath`.
 */
export function requestPath(target: string): string {
  const queryAt = target.indexOf("?");
  const path = queryAt === -1 ? target : target.slice(0, queryAt);
  if (path.startsWith("/")) return path;
  // An absolute-form target (`http://host/path`): its path, still undecoded.
  try {
    return new URL(path).pathname;
  } catch {
    return path;
  }
}

/** Matches requests to routes the way an HTTP API does. */
export class RouteTable<R extends RouteSpec> {
  private readonly entries: Array<{ route: R; template: Segment[] }>;

  constructor(routes: readonly R[]) {
    this.entries = routes
      .map((route) => ({ route, template: parseTemplate(route.path) }))
      .sort((a, b) => specificity(b.template) - specificity(a.template));
  }

  /** `undefined` when nothing matches the path; `"method"` when the path matches another method. */
  match(method: string, rawPath: string): RouteMatch<R> | "method" | undefined {
    const cleaned = rawPath.split("/").filter((s) => s !== "");
    let pathMatched = false;
    for (const { route, template } of this.entries) {
      const params = matchPath(template, cleaned);
      if (!params) continue;
      if (route.method.toUpperCase() === method.toUpperCase()) {
        return { route, pathParameters: params };
      }
      pathMatched = true;
    }
    return pathMatched ? "method" : undefined;
  }
}

/** Content types that API Gateway passes as text; anything else arrives base64-encoded. */
export const isTextContentType = (contentType: string | undefined): boolean => {
  if (!contentType) return true;
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  return (
    type.startsWith("text/") ||
    type === "application/json" ||
    type.endsWith("+json") ||
    type === "application/x-www-form-urlencoded" ||
    type === "application/xml" ||
    type.endsWith("+xml") ||
    type === "application/javascript"
  );
};

export interface IncomingRequest {
  method: string;
  /** Path plus query string, as on the request line. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  sourceIp: string;
}

export interface EventContext {
  routeKey: string;
  pathParameters: Record<string, string>;
  now: number;
  apiId: string;
  domainName: string;
}

/** Builds the payload-format 2.0 event an HTTP API sends to a Lambda integration. */
export function toApiGatewayEvent(req: IncomingRequest, ctx: EventContext): APIGatewayProxyEventV2 {
  const queryAt = req.url.indexOf("?");
  const rawPath = queryAt === -1 ? req.url : req.url.slice(0, queryAt);
  const rawQueryString = queryAt === -1 ? "" : req.url.slice(queryAt + 1);

  const headers: Record<string, string> = {};
  let cookies: string[] | undefined;
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    const joined = Array.isArray(value) ? value.join(",") : value;
    // HTTP APIs move cookies out of the headers into their own array.
    if (lower === "cookie") cookies = joined.split(";").map((c) => c.trim());
    else headers[lower] = joined;
  }

  const query: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(rawQueryString)) {
    // Repeated parameters arrive comma-joined, as API Gateway v2 sends them.
    query[k] = query[k] === undefined ? v : `${query[k]},${v}`;
  }

  const isText = isTextContentType(headers["content-type"]);
  const hasBody = req.body.length > 0;
  const requestId = randomUUID();
  const event: APIGatewayProxyEventV2 = {
    version: "2.0",
    routeKey: ctx.routeKey,
    rawPath: decodeSegmentsKeepSlashes(rawPath),
    rawQueryString,
    headers,
    requestContext: {
      accountId: LOCAL_ACCOUNT_ID,
      apiId: ctx.apiId,
      domainName: ctx.domainName,
      domainPrefix: ctx.domainName.split(".")[0] ?? ctx.domainName,
      http: {
        method: req.method.toUpperCase(),
        path: rawPath,
        protocol: "HTTP/1.1",
        sourceIp: req.sourceIp,
        userAgent: headers["user-agent"] ?? "",
      },
      requestId,
      routeKey: ctx.routeKey,
      stage: "$default",
      time: formatRequestTime(ctx.now),
      timeEpoch: ctx.now,
    },
    isBase64Encoded: hasBody && !isText,
  };
  if (cookies) event.cookies = cookies;
  if (Object.keys(query).length > 0) event.queryStringParameters = query;
  if (Object.keys(ctx.pathParameters).length > 0) event.pathParameters = ctx.pathParameters;
  if (hasBody) event.body = isText ? req.body.toString("utf8") : req.body.toString("base64");
  return event;
}

const decodeSegmentsKeepSlashes = (path: string): string =>
  path
    .split("/")
    .map((s) => decodeSegment(s))
    .join("/");

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const pad = (n: number) => String(n).padStart(2, "0");

/** API Gateway's `requestContext.time` format: `12/Mar/2020:19:03:58 +0000`. */
export function formatRequestTime(epochMs: number): string {
  const d = new Date(epochMs);
  return `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(
    d.getUTCHours(),
  )}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}

export interface HttpResponse {
  statusCode: number;
  headers: Record<string, string>;
  cookies: string[];
  body: Buffer;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Maps a handler's result back to HTTP as an HTTP API does: a structured result (with
 * `statusCode`) is used as given; any other value is a 200 JSON body.
 */
export function fromHandlerResult(result: unknown): HttpResponse {
  if (isRecord(result) && typeof result.statusCode === "number") {
    const headers: Record<string, string> = {};
    if (isRecord(result.headers)) {
      for (const [k, v] of Object.entries(result.headers)) headers[k.toLowerCase()] = String(v);
    }
    if (isRecord(result.multiValueHeaders)) {
      for (const [k, v] of Object.entries(result.multiValueHeaders)) {
        if (Array.isArray(v)) headers[k.toLowerCase()] = v.map(String).join(",");
      }
    }
    const cookies = Array.isArray(result.cookies) ? result.cookies.map(String) : [];
    const rawBody = result.body;
    const text =
      typeof rawBody === "string"
        ? rawBody
        : rawBody === undefined || rawBody === null
          ? ""
          : JSON.stringify(rawBody);
    const body = result.isBase64Encoded === true ? Buffer.from(text, "base64") : Buffer.from(text);
    return { statusCode: result.statusCode, headers, cookies, body };
  }
  if (typeof result === "string") {
    return {
      statusCode: 200,
      headers: { "content-type": "application/json" },
      cookies: [],
      body: Buffer.from(result),
    };
  }
  return {
    statusCode: 200,
    headers: { "content-type": "application/json" },
    cookies: [],
    body: Buffer.from(result === undefined ? "" : JSON.stringify(result)),
  };
}
