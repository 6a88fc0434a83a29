import { MemoryNoticeStore } from "#lib/store/memory-notice-store";
import { describeNoticeStoreContract } from "../../contract/notice-store.contract";

describeNoticeStoreContract("MemoryNoticeStore", async () => ({
  store: new MemoryNoticeStore(),
  cleanup: async () => {},
}));
