import { MemorySyncGate } from "#lib/store/memory-sync-gate";
import { describeSyncGateContract } from "../../contract/sync-gate.contract";

describeSyncGateContract("MemorySyncGate", async () => ({
  gate: new MemorySyncGate(),
  cleanup: async () => {},
}));
