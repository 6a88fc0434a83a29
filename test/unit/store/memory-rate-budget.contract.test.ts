import { MemoryRateBudget } from "#lib/store/memory-rate-budget";
import { describeRateBudgetContract } from "../../contract/rate-budget.contract";

describeRateBudgetContract("MemoryRateBudget", async (limits) => ({
  budget: new MemoryRateBudget(limits),
  cleanup: async () => {},
}));
