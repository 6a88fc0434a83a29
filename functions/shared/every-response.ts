import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";

/**
 * Headers every HTTP answer carries, whichever part answered: a route, a refusal, the 500 net.
 * `nosniff`: a browser takes a `text/plain` or JSON answer for what its header says, never for
 * HTML or script it guessed from the bytes (a reflected value cannot become a page).
 */
export const EVERY_RESPONSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "x-content-type-options": "nosniff",
});

/**
 * Adds `EVERY_RESPONSE_HEADERS` to the answer, after the handler and after any error was
 * answered. Use it first in a chain, so that it runs last (middy runs `after` and `onError` in
 * reverse order) and sees the answer of every middleware below it.
 */
export function everyResponse<Event>(): MiddlewareObj<Event, APIGatewayProxyStructuredResultV2> {
  const stamp = (request: { response: APIGatewayProxyStructuredResultV2 | undefined | null }) => {
    const response = request.response;
    if (response === undefined || response === null || typeof response !== "object") return;
    request.response = { ...response, headers: { ...response.headers, ...EVERY_RESPONSE_HEADERS } };
  };
  return { after: stamp, onError: stamp };
}
