import { type ComponentChildren, createContext, type VNode } from "preact";
import { useContext } from "preact/hooks";
import { CSRF_FIELD } from "../csrf";
import type { RefusedForm } from "./view-model";

/**
 * Form pieces that make the page's rules hold by construction: a PostForm always carries the
 * CSRF token, and every input is built together with its label. A form the page answers after
 * refusing it (`RefusedFormContext`) shows what was typed in each of its fields, and marks each
 * refused field (`aria-invalid`, its reason beside it and named by `aria-describedby`), whichever
 * fields the form has.
 */

/** The refused form the page answers, if any: provided once for the whole page. */
export const RefusedFormContext = createContext<RefusedForm | undefined>(undefined);

/** Inside a PostForm: what was typed in it and why it was refused, when it is the refused one. */
const TypedContext = createContext<Omit<RefusedForm, "action"> | undefined>(undefined);

export function PostForm(props: {
  action: string;
  csrfToken: string;
  children: ComponentChildren;
}): VNode {
  const refused = useContext(RefusedFormContext);
  const form = (
    <form method="post" action={props.action}>
      <input type="hidden" name={CSRF_FIELD} value={props.csrfToken} />
      {props.children}
    </form>
  );
  if (refused?.action !== props.action) return form;
  return <TypedContext.Provider value={refused}>{form}</TypedContext.Provider>;
}

/**
 * A field's value (what was typed, in a refused form; else what is stored), and its error: the
 * attributes that mark it and the message beside it.
 */
function useField(id: string, name: string, stored: string | undefined, hintId?: string) {
  const typed = useContext(TypedContext);
  const error = typed !== undefined && Object.hasOwn(typed.errors, name) ? typed.errors[name] : "";
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [errorId, hintId].filter((x) => x !== undefined).join(" ");
  return {
    value: typed === undefined ? stored : (typed.values[name] ?? ""),
    attrs: {
      "aria-invalid": error ? ("true" as const) : undefined,
      "aria-describedby": describedBy === "" ? undefined : describedBy,
    },
    message: error ? (
      <p id={errorId} class="problem">
        {error}
      </p>
    ) : null,
  };
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
  const field = useField(props.id, props.name, props.value, hintId);
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        name={props.name}
        type={props.type ?? "text"}
        value={field.value ?? ""}
        required={props.required === true}
        placeholder={props.placeholder}
        maxLength={props.maxLength}
        {...field.attrs}
        autocomplete="off"
      />
      {field.message}
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
  const field = useField(props.id, props.name, props.value, hintId);
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <textarea id={props.id} name={props.name} {...field.attrs}>
        {field.value}
      </textarea>
      {field.message}
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
  const field = useField(props.id, props.name, props.checked === true ? "on" : undefined);
  return (
    <>
      <label class="check" for={props.id}>
        <input
          id={props.id}
          name={props.name}
          type="checkbox"
          value="on"
          checked={field.value === "on"}
          required={props.required === true}
          {...field.attrs}
        />
        {props.label}
      </label>
      {field.message}
    </>
  );
}
