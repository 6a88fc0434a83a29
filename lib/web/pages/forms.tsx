import type { ComponentChildren, VNode } from "preact";
import { CSRF_FIELD } from "../csrf";

/**
 * Form pieces that make the page's rules hold by construction: a PostForm always carries the
 * CSRF token, and every input is built together with its label.
 */

export function PostForm(props: {
  action: string;
  csrfToken: string;
  children: ComponentChildren;
}): VNode {
  return (
    <form method="post" action={props.action}>
      <input type="hidden" name={CSRF_FIELD} value={props.csrfToken} />
      {props.children}
    </form>
  );
}

export function TextField(props: {
  id: string;
  name: string;
  label: string;
  value?: string;
  type?: "text" | "url" | "date";
  required?: boolean;
  placeholder?: string;
  maxLength?: number;
  hint?: string;
}): VNode {
  const hintId = props.hint === undefined ? undefined : `${props.id}-hint`;
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        name={props.name}
        type={props.type ?? "text"}
        value={props.value ?? ""}
        required={props.required === true}
        placeholder={props.placeholder}
        maxLength={props.maxLength}
        aria-describedby={hintId}
        autocomplete="off"
      />
      {props.hint !== undefined && (
        <p id={hintId} class="muted">
          {props.hint}
        </p>
      )}
    </div>
  );
}

export function TextArea(props: {
  id: string;
  name: string;
  label: string;
  value: string;
  hint?: string;
}): VNode {
  const hintId = props.hint === undefined ? undefined : `${props.id}-hint`;
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <textarea id={props.id} name={props.name} aria-describedby={hintId}>
        {props.value}
      </textarea>
      {props.hint !== undefined && (
        <p id={hintId} class="muted">
          {props.hint}
        </p>
      )}
    </div>
  );
}

export function CheckBox(props: {
  id: string;
  name: string;
  label: string;
  checked?: boolean;
  required?: boolean;
}): VNode {
  return (
    <label class="check" for={props.id}>
      <input
        id={props.id}
        name={props.name}
        type="checkbox"
        value="on"
        checked={props.checked === true}
        required={props.required === true}
      />
      {props.label}
    </label>
  );
}
