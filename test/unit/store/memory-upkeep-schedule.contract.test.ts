import { MemoryUpkeepSchedule } from "#lib/store/memory-upkeep-schedule";
import { describeUpkeepScheduleContract } from "../../contract/upkeep-schedule.contract";

describeUpkeepScheduleContract("MemoryUpkeepSchedule", async () => ({
  schedule: new MemoryUpkeepSchedule(),
  cleanup: async () => {},
}));
