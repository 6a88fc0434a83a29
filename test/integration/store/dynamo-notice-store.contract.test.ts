import { DynamoNoticeStore } from "#lib/store/dynamo-notice-store";
import { describeNoticeStoreContract } from "../../contract/notice-store.contract";
import { tablePerTest } from "../../support/dynalite-tables";

// One dynalite for the file, a fresh table for each test.
const freshTable = tablePerTest("notice-contract");

describeNoticeStoreContract("DynamoNoticeStore over dynalite", async () => {
  const { client, tableName, cleanup } = await freshTable();
  return { store: new DynamoNoticeStore(client, tableName), cleanup };
});
