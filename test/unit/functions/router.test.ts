import { describe, expect, it } from "vitest";
import { type HttpRequest, json, routed } from "#functions/shared/http";
import type { App } from "#lib/app/compose/app";
import { MethodNotAllowed, WebhookError } from "../../../lib/webhooks";

const app = {} as App;
const request = (method: string, routeKey: string): HttpRequest => ({
  method,
  routeKey,
  path: "/ignored",
  headers: {},
  query: {},
  params: {},
  rawBody: "",
  iamCaller: undefined,
});
const answer = (name: string) => async () => json(200, { name });
const COLLECTION = "/admin/users/{team}/{user}/ooo";
const table = [
  { method: "GET" as const, path: COLLECTION, handler: answer("list") },
  { method: "POST" as const, path: COLLECTION, handler: answer("schedule") },
  { method: "DELETE" as const, path: `${COLLECTION}/{id}`, handler: answer("cancel") },
];

describe("routed", () => {
  const route = routed(table, { notFound: "no route" });

  it("dispatches on the request's method and the route key's path", async () => {
    const list = await route(request("GET", `GET ${COLLECTION}`), app);
    const cancel = await route(request("DELETE", `DELETE ${COLLECTION}/{id}`), app);
    expect([list.body, cancel.body]).toEqual(['{"name":"list"}', '{"name":"cancel"}']);
  });

  it("refuses another method on a served path with 405 naming the methods it serves", async () => {
    // The route key says POST, the request is a PATCH: the request's method decides.
    for (const method of ["PATCH", "PUT", "HEAD", "", "BREW"]) {
      const error = await route(request(method, `POST ${COLLECTION}`), app).catch((e) => e);
      expect(error).toBeInstanceOf(MethodNotAllowed);
      expect((error as MethodNotAllowed).allow).toEqual(["GET", "POST"]);
    }
  });

  it("answers a route key it does not serve, or none, with not_found", async () => {
    for (const routeKey of ["GET /hooks/graph", "$default", ""]) {
      const error = await route(request("GET", routeKey), app).catch((e) => e);
      expect(error).toBeInstanceOf(WebhookError);
      expect((error as WebhookError).code).toBe("not_found");
    }
  });

  it("by route key, takes the method from it and answers any other route key with not_found", async () => {
    const byKey = routed(table, { notFound: "no route", byRouteKey: true });
    const list = await byKey(request("POST", `GET ${COLLECTION}`), app);
    const other = await byKey(request("GET", `PUT ${COLLECTION}`), app).catch((e) => e);
    expect(list.body).toBe('{"name":"list"}');
    expect((other as WebhookError).code).toBe("not_found");
  });
});
