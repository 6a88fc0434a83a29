import type { APIGatewayProxyEventV2 } from "aws-lambda";
import * as z from "zod";

/**
 * The parts of an API Gateway v2 (payload 2.0) event the handlers read, for the parser
 * middleware. Powertools ships `APIGatewayProxyEventV2Schema`, but it is no use here: it imports
 * zod as `{ z }`, which bundles zod's 40-odd locales into every function, and it requires
 * fields (version, a source IP, a route key) that the local gateway and our tests leave out and
 * whose absence must not change the answer (no route key is a 404, not a 400).
 */
export const httpEventSchema = z.object({
  /** `METHOD /path/{param}` of the route API Gateway matched; handlers dispatch on it. */
  routeKey: z.string().default(""),
  rawPath: z.string().default("/"),
  headers: z.record(z.string(), z.string()).default({}),
  /** API Gateway v2 moves the `Cookie` header's pairs here. */
  cookies: z.array(z.string()).optional(),
  queryStringParameters: z.record(z.string(), z.string()).optional(),
  pathParameters: z.record(z.string(), z.string()).optional(),
  body: z.string().optional(),
  isBase64Encoded: z.boolean().default(false),
  requestContext: z
    .object({
      http: z.object({ method: z.string() }).optional(),
      authorizer: z
        .object({ iam: z.object({ userArn: z.string().optional() }).loose().optional() })
        .loose()
        .optional(),
    })
    .loose()
    .default({}),
});

export type HttpEvent = z.infer<typeof httpEventSchema>;

/** What the chain receives; the parser middleware replaces it with an HttpEvent. */
export type HttpEventIn = APIGatewayProxyEventV2;

export interface HttpRequest {
  method: string;
  /**
   * The matched route, e.g. `POST /hooks/generic/{sourceId}`. Dispatch on it, never on `path`:
   * API Gateway decodes `%2F` in the path, so a parameter can make it end like another route.
   */
  routeKey: string;
  path: string;
  /** Lower-cased names (the header normaliser's work). */
  headers: Record<string, string>;
  query: Record<string, string>;
  params: Record<string, string>;
  /** The body exactly as sent: signatures are computed over it. */
  rawBody: string;
  iamCaller: string | undefined;
  /** The request's cookies (`name=value`): API Gateway v2's list, or the `Cookie` header's. */
  cookies?: string[];
}

export function toRequest(event: HttpEvent): HttpRequest {
  return {
    method: event.requestContext.http?.method.toUpperCase() ?? "GET",
    routeKey: event.routeKey,
    path: event.rawPath,
    headers: event.headers,
    query: event.queryStringParameters ?? {},
    params: event.pathParameters ?? {},
    rawBody: event.isBase64Encoded
      ? Buffer.from(event.body ?? "", "base64").toString("utf8")
      : (event.body ?? ""),
    iamCaller: event.requestContext.authorizer?.iam?.userArn,
    cookies: event.cookies ?? (event.headers.cookie ?? event.headers.Cookie ?? "").split(";"),
  };
}
