import type { SnoozeGateway, StatusTarget } from "#lib/core/ports";
import type { ServiceClient } from "#lib/service/client";
import { ServiceError } from "#lib/service/errors";
import { gatewayError } from "./service-gateway";

/** The snooze gateway over the service client's `dnd.*` calls, with the user's own token. */
export class ServiceSnoozeGateway implements SnoozeGateway {
  constructor(private readonly client: Pick<ServiceClient, "dnd">) {}

  async setSnooze(target: StatusTarget, minutes: number): Promise<{ endS: number }> {
    try {
      const answer = await this.client.dnd("dnd.setSnooze", target.token, {
        num_minutes: String(minutes),
      });
      if (answer.snooze_endtime === undefined) throw new Error("dnd.setSnooze gave no end");
      return { endS: answer.snooze_endtime };
    } catch (error: unknown) {
      throw gatewayError(error, "snooze");
    }
  }

  async endSnooze(target: StatusTarget): Promise<void> {
    try {
      await this.client.dnd("dnd.endSnooze", target.token);
    } catch (error: unknown) {
      // It ran out (or the person ended it) meanwhile: what we wanted.
      if (error instanceof ServiceError && error.code === "snooze_not_active") return;
      throw gatewayError(error, "snooze end");
    }
  }

  async snoozeInfo(target: StatusTarget): Promise<{ endS: number | undefined }> {
    try {
      const answer = await this.client.dnd("dnd.info", target.token);
      const on = answer.snooze_enabled === true && answer.snooze_endtime !== undefined;
      return { endS: on ? answer.snooze_endtime : undefined };
    } catch (error: unknown) {
      throw gatewayError(error, "snooze read");
    }
  }
}
