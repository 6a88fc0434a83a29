import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { everyResponse } from "../shared/every-response";

/** GET /health: answers without an app, so it is cheap for readiness probes. */
export const createHandler = () =>
  middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    .use(everyResponse())
    .handler(async () => ({
      statusCode: 200,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ok: true }),
    }));

export const handler = createHandler();
