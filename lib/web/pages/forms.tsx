import { type ComponentChildren, createContext, type VNode } from "preact";
import { useContext } from "preact/hooks";
import { CSRF_FIELD } from "../csrf";
import { listItemField, type RefusedForm } from "./view-model";

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
 * A field's value (what was typed, in a refused form; else what is stored), its error (the
 * attributes that mark it and the message beside it) and its hint, when it has one (named by
 * `aria-describedby` too).
 */
function useField(id: string, name: string, stored: string | undefined, hintText?: string) {
  const hintId = hintText === undefined ? undefined : `${id}-hint`;
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
    hint:
      hintText === undefined ? null : (
        <p id={hintId} class="muted">
          {hintText}
        </p>
      ),
  };
}

/** A field typed in: its label above it and, when it has one, a hint below. */
interface TypedInProps {
  id: string;
  name: string;
  label: string;
  hint?: string;
}

export function TextField(
  props: TypedInProps & {
    value?: string;
    type?: "text" | "url" | "date" | "time" | "number";
    required?: boolean;
    min?: number;
    max?: number;
    placeholder?: string;
    maxLength?: number;
  },
): VNode {
  const field = useField(props.id, props.name, props.value, props.hint);
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
        min={props.min}
        max={props.max}
        {...field.attrs}
        autocomplete="off"
      />
      {field.message}
      {field.hint}
    </div>
  );
}

export function TextArea(props: TypedInProps & { value: string }): VNode {
  const field = useField(props.id, props.name, props.value, props.hint);
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <textarea id={props.id} name={props.name} {...field.attrs}>
        {field.value}
      </textarea>
      {field.message}
      {field.hint}
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

/** A field that holds one of a few values, each with its words. */
interface ChoiceProps {
  id: string;
  name: string;
  value: string;
  options: readonly { value: string; label: string }[];
}

/** A choice of a few values, each with its words. */
export function Select(props: ChoiceProps & { label: string }): VNode {
  const field = useField(props.id, props.name, props.value);
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <select id={props.id} name={props.name} {...field.attrs}>
        {props.options.map((o) => (
          <option key={o.value} value={o.value} selected={o.value === field.value}>
            {o.label}
          </option>
        ))}
      </select>
      {field.message}
    </div>
  );
}

/** One of a few values, as radio buttons under a legend. */
export function RadioGroup(props: ChoiceProps & { legend: string }): VNode {
  const field = useField(props.id, props.name, props.value);
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      {props.options.map((o) => (
        <label class="check" key={o.value} for={`${props.id}-${o.value}`}>
          <input
            id={`${props.id}-${o.value}`}
            type="radio"
            name={props.name}
            value={o.value}
            checked={o.value === field.value}
            {...field.attrs}
          />
          {o.label}
        </label>
      ))}
      {field.message}
    </fieldset>
  );
}

/**
 * A list of checkboxes (`<name>_<value>` each) under a legend, with an empty hidden field named
 * after the list, so a refused list has its reason shown here (lib/web/rules-form.ts).
 */
export function CheckList(props: {
  id: string;
  name: string;
  legend: string;
  options: readonly { value: string; label: string; checked: boolean }[];
  hint?: string;
}): VNode {
  const field = useField(props.id, props.name, "");
  return (
    <fieldset id={props.id} {...field.attrs}>
      <legend>{props.legend}</legend>
      <input type="hidden" name={props.name} value="" />
      {props.hint !== undefined && <p class="muted">{props.hint}</p>}
      {props.options.map((o) => (
        <CheckBox
          key={o.value}
          id={`${props.id}-${o.value}`}
          name={listItemField(props.name, o.value)}
          label={o.label}
          checked={o.checked}
        />
      ))}
      {field.message}
    </fieldset>
  );
}
