import { createHash } from "node:crypto";
import type { ComponentChildren, VNode } from "preact";
import { renderToString } from "preact-render-to-string";

/**
 * The frame of every page: no script and no external asset, one inline style sheet, readable on
 * a phone. The Content-Security-Policy below allows exactly that style sheet (by hash), forms
 * that post to this origin only, and no framing.
 */
const CSS = `
:root { color-scheme: light dark; --accent: #2563eb; --muted: #6b7280; --line: #d1d5db; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
main { max-width: 40rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; margin: 0.5rem 0 1rem; }
h2 { font-size: 1.15rem; margin: 0 0 0.5rem; }
section { border: 1px solid var(--line); border-radius: 0.5rem; padding: 1rem; margin: 0 0 1rem; }
label { display: block; font-weight: 600; margin: 0.5rem 0 0.25rem; }
label.check { display: flex; gap: 0.5rem; align-items: center; font-weight: 400; }
input[type=text], input[type=url], input[type=date], textarea { width: 100%; padding: 0.5rem; font: inherit; border: 1px solid var(--line); border-radius: 0.375rem; }
textarea { min-height: 4rem; }
button, a.button { display: inline-block; margin-top: 0.5rem; padding: 0.5rem 1rem; font: inherit; border: 0; border-radius: 0.375rem; background: var(--accent); color: #fff; text-decoration: none; cursor: pointer; }
button.danger { background: #b91c1c; }
button.quiet { background: transparent; color: var(--accent); border: 1px solid var(--accent); padding: 0.25rem 0.75rem; }
ul.plain { list-style: none; padding: 0; margin: 0; }
ul.plain li { padding: 0.5rem 0; border-bottom: 1px solid var(--line); }
ul.plain li:last-child { border-bottom: 0; }
.muted { color: var(--muted); font-size: 0.9rem; }
.now { font-weight: 700; }
.notice { padding: 0.75rem 1rem; border-radius: 0.5rem; margin: 0 0 1rem; background: #dbeafe; color: #1e3a8a; }
.notice.error, .problem { background: #fee2e2; color: #7f1d1d; }
.problem { padding: 0.25rem 0.5rem; border-radius: 0.25rem; }
fieldset { border: 1px solid var(--line); border-radius: 0.375rem; margin: 0.5rem 0; }
`;

const CSS_HASH = createHash("sha256").update(CSS, "utf8").digest("base64");

/** The headers every page goes out with. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": [
    "default-src 'none'",
    `style-src 'sha256-${CSS_HASH}'`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; "),
  // Not no-referrer: under it a browser sends `Origin: null` with our own forms, and the forms'
  // origin check (lib/web/form-origin.ts) could not tell them from a sandboxed page's. Nothing
  // leaves the origin either way: other sites get no Referer.
  "referrer-policy": "same-origin",
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
});

export function Layout(props: { title: string; children: ComponentChildren }): VNode {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · Statuspilot`}</title>
        {/* Our own constant sheet, not data: written raw so the CSP hash matches its bytes. */}
        <style dangerouslySetInnerHTML={{ __html: CSS }} />
      </head>
      <body>
        <main>{props.children}</main>
      </body>
    </html>
  );
}

/** A whole HTML document; preact escapes every text and attribute value in it. */
export const renderPage = (page: VNode): string => `<!doctype html>${renderToString(page)}`;
