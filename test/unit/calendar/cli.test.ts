import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runExpand, runTimeline } from "#lib/cli/calendar";
import type { CliIo } from "#lib/cli/io";

const fixture = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../fixtures/ics/outlook-exchange.ics",
);
const edge = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../fixtures/ics/edge-cases.ics",
);

function bufferIo(): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (t) => stdout.push(t), err: (t) => stderr.push(t) };
}

describe("statuspilot calendar expand", () => {
  it("prints occurrences sorted by start with UTC ISO instants", async () => {
    // Prepare
    const io = bufferIo();
    // Act
    const code = await runExpand(
      [
        fixture,
        "--from",
        "2024-03-05T00:00:00Z",
        "--to",
        "2024-03-08T00:00:00Z",
        "--tz",
        "Europe/Berlin",
      ],
      io,
    );
    // Assess
    expect(code).toBe(0);
    const rows = JSON.parse(io.stdout.join("")) as Array<{
      start: string;
      end: string;
      summary: string;
    }>;
    expect(rows.map((r) => [r.start, r.end, r.summary])).toEqual([
      ["2024-03-05T14:00:00.000Z", "2024-03-05T14:30:00.000Z", "Sprint sync"],
      ["2024-03-07T16:00:00.000Z", "2024-03-07T17:00:00.000Z", "Sprint sync (moved)"],
    ]);
  });

  it("reports skipped events and guessed zones on stderr with their reasons", async () => {
    const io = bufferIo();
    const code = await runExpand(
      [edge, "--from", "2024-03-29T00:00:00Z", "--to", "2024-04-05T00:00:00Z"],
      io,
    );
    expect(code).toBe(0);
    expect(io.stderr).toContain(
      'skipped broken "Broken start": DTSTART 2024--0-3-T0:: is not a real date',
    );
    expect(io.stderr).toContain(
      'warning (feed): unknown time zone "Mars/Olympus_Mons"; read in UTC, the user\'s zone',
    );
  });

  it("exits 2 with one line for a missing file or a file that is not iCalendar", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "sp-cli-"));
    const junk = path.join(dir, "junk.ics");
    writeFileSync(junk, "<html>not a calendar</html>");
    for (const file of [path.join(dir, "missing.ics"), junk]) {
      const io = bufferIo();
      const code = await runExpand(
        [file, "--from", "2024-01-01T00:00:00Z", "--to", "2024-01-02T00:00:00Z"],
        io,
      );
      expect(code).toBe(2);
      expect(io.stderr).toHaveLength(1);
      expect(io.stderr[0]).not.toContain("\n");
    }
  });

  it("rejects a window that is not ISO-8601 with a usage error", async () => {
    const io = bufferIo();
    expect(
      await runExpand([fixture, "--from", "yesterday", "--to", "2024-01-02T00:00:00Z"], io),
    ).toBe(64);
  });
});

describe("statuspilot calendar timeline", () => {
  it("prints merged blocks with text, emoji, kind and expiration", async () => {
    const io = bufferIo();
    const code = await runTimeline(
      [
        fixture,
        "--from",
        "2024-03-18T00:00:00Z",
        "--to",
        "2024-03-23T00:00:00Z",
        "--tz",
        "Europe/Berlin",
      ],
      io,
    );
    expect(code).toBe(0);
    const blocks = JSON.parse(io.stdout.join("")) as Array<Record<string, unknown>>;
    // The OOF leave (Mon-Fri) covers the Tuesday and Thursday syncs.
    expect(blocks).toEqual([
      {
        start: "2024-03-17T23:00:00.000Z",
        end: "2024-03-22T23:00:00.000Z",
        text: "Out of office until Fri, 22 Mar",
        emoji: ":palm_tree:",
        kind: "ooo",
        expiration: Date.parse("2024-03-22T23:00:00Z") / 1000,
      },
    ]);
  });
});
