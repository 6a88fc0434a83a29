/**
 * A DNS that answers each name from a script, one answer per lookup (the last one repeated), so
 * a rebinding name can answer a public address first and an inside one after. It counts the
 * lookups of each name; a name it does not know has no address.
 */
export function scriptedDns(answers: Record<string, string[][]>) {
  const lookups = new Map<string, number>();
  const resolveHost = async (host: string): Promise<string[]> => {
    const script = answers[host] ?? [[]];
    const n = lookups.get(host) ?? 0;
    lookups.set(host, n + 1);
    return script[Math.min(n, script.length - 1)] ?? [];
  };
  return { resolveHost, lookups };
}
