import { MemoryStore } from "#lib/store/memory-store";
import { describeStatusStoreContract } from "../../contract/status-store.contract";

describeStatusStoreContract("MemoryStore", async () => ({
  store: new MemoryStore(),
  cleanup: async () => {},
}));
