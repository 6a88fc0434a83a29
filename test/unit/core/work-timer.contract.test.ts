import { systemWorkTimer } from "#lib/app/compose/system-clock";
import { describeWorkTimerContract } from "../../contract/work-timer.contract";
import { SteppingWorkTimer } from "../../support/work-timer";

describeWorkTimerContract("system (performance.now, setImmediate)", () => systemWorkTimer);
describeWorkTimerContract("stepping (tests)", () => new SteppingWorkTimer(1));
