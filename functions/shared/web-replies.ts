import { PAGE_HEADERS } from "../../lib/web/pages/layout";
import type { HttpResult } from "./http-errors";

/** The front door's answers: HTML pages and redirects, cookies through API Gateway v2's list. */

export const page = (status: number, html: string, cookies: string[] = []): HttpResult => ({
  statusCode: status,
  headers: { ...PAGE_HEADERS },
  body: html,
  ...(cookies.length > 0 ? { cookies } : {}),
});

/** 302 for a GET (install, callback), 303 after a form (post/redirect/get). */
export const redirect = (
  status: 302 | 303,
  location: string,
  cookies: string[] = [],
): HttpResult => ({
  statusCode: status,
  headers: { location, "cache-control": "no-store", "referrer-policy": "no-referrer" },
  body: "",
  ...(cookies.length > 0 ? { cookies } : {}),
});
