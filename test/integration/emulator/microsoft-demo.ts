import { DEMO_CLIENTS, DEMO_USERS } from "#emulator/microsoft/server";

// What the Microsoft emulator's tests share: the demo tenant's first user and app registration,
// and the instant their clocks start at.

export const MS_T0 = Date.UTC(2026, 10, 24, 8, 0, 0);
export const MS_USER = DEMO_USERS[0]?.id ?? "";
export const MS_CLIENT = DEMO_CLIENTS[0] ?? { clientId: "", clientSecret: "", redirectUris: [] };
