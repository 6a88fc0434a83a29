/** A user of the local --config as the demo writes one: the demo token, a zone and one ICS feed. */
export const demoConfigUser = {
  team: "T0DEMO",
  user: "U001",
  token: "xoxp-demo-U001",
  tz: "Europe/Berlin",
  calendars: ["http://127.0.0.1:8080/u001.ics"],
};
