import type { VNode } from "preact";
import { statusLine, timeOf } from "./format";
import type { EventWhyView } from "./view-model";

/**
 * Today's events, each with the status it sets and the rule that chose it, or why it sets none:
 * how a person finds out why their status says what it says. Titles are the person's own (the
 * page is theirs alone).
 */
export function TodayEvents(props: {
  events: readonly EventWhyView[];
  tz: string;
  locale: string | undefined;
}): VNode {
  const time = (at: number) => timeOf(at, props.tz, props.locale);
  return (
    <>
      <h3 id="today-events">Why: today's events</h3>
      {props.events.length === 0 ? (
        <p class="muted">No events today.</p>
      ) : (
        <ul class="plain" aria-labelledby="today-events">
          {props.events.map((e) => (
            <li key={`${e.start}-${e.end}-${e.title}-${e.rule}`} class="event">
              <div>
                {e.allDay ? "All day " : `${time(e.start)}–${time(e.end)} `}
                <span class="title">{e.title === "" ? "(no title)" : e.title}</span>
              </div>{" "}
              <div class="muted">
                {e.status !== undefined ? `${statusLine(e.status)} · ${e.rule}` : e.rule}
              </div>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
