/**
 * FNV-1a (32 bits) of a string: a stable, well-spread number for phases, slots and jitter that
 * must come out the same for the same identity in every process and release.
 */
export function fnv1a(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h;
}
