import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";

/** GET /health: answers without an app, so it is cheap for readiness probes. */
export const createHandler = () =>
  middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>().handler(async () => ({
    statusCode: 200,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ok: true }),
  }));

export const handler = createHandler();
