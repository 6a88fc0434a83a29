import { MemoryOneTimeMarks } from "#lib/store/memory-one-time-marks";
import { oneTimeMarksContract } from "../../contract/one-time-marks.contract";

oneTimeMarksContract("in memory", () => new MemoryOneTimeMarks());
