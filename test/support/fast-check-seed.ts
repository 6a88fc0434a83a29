import fc from "fast-check";

// Property tests run with one fixed seed, so a CI run is reproducible; FC_SEED=random explores
// new cases, FC_SEED=<n> replays a reported one. A property's own seed still wins.
const seed = process.env.FC_SEED ?? "20261121";
if (seed !== "random") fc.configureGlobal({ seed: Number(seed) });
