// Message components as the spec's tables: action rows (type 1) holding buttons (type 2) or one string select
// (type 3). Types 4-8 are accepted and kept exactly as sent, unrendered. Rows, buttons and string selects are
// checked field by field and rebuilt from their known fields; every problem is reported with its dot/index path
// (components.0.components.1.custom_id). Shared by message sends and webhook executions.
import { type FieldError, invalidForm } from './errors.js';

export const ComponentType = { ACTION_ROW: 1, BUTTON: 2, STRING_SELECT: 3 } as const;
/** Types accepted by the schema but not rendered: passed through to bots as sent. */
const OPAQUE_TYPES = [4, 5, 6, 7, 8];
/** Every select menu type: a row holding one cannot also hold buttons. */
const SELECT_TYPES = [3, 5, 6, 7, 8];
export const ButtonStyle = { PRIMARY: 1, SECONDARY: 2, SUCCESS: 3, DANGER: 4, LINK: 5 } as const;

export const MAX_ROWS = 5;
export const MAX_ROW_CHILDREN = 5;
const MAX_OPTIONS = 25;

export interface ComponentEmoji {
  name: string | null;
  id?: string | null;
  animated?: boolean;
}

export interface Button {
  type: 2;
  style: number;
  label?: string;
  emoji?: ComponentEmoji;
  custom_id?: string;
  url?: string;
  disabled?: boolean;
}

export interface SelectOption {
  label: string;
  value: string;
  description?: string;
  emoji?: ComponentEmoji;
  default?: boolean;
}

export interface StringSelect {
  type: 3;
  custom_id: string;
  placeholder?: string;
  options: SelectOption[];
  min_values?: number;
  max_values?: number;
  disabled?: boolean;
}

/** A component of types 4-8, kept as sent. */
export type OpaqueComponent = { type: number } & Record<string, unknown>;

export type RowChild = Button | StringSelect | OpaqueComponent;

export interface ActionRow {
  type: 1;
  components: RowChild[];
}

export type Component = ActionRow | OpaqueComponent;

type Input = Record<string, unknown>;

class Checker {
  readonly errors: FieldError[] = [];
  readonly customIds = new Map<string, string>();

  fail(path: string, message: string): undefined {
    this.errors.push({ path, message });
    return undefined;
  }

  object(value: unknown, path: string): Input | undefined {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return this.fail(path, 'Must be an object');
    return value as Input;
  }

  /** A string of min..max characters (code points); undefined when absent and optional. */
  text(object: Input, key: string, path: string, min: number, max: number, required: boolean): string | undefined {
    const value = object[key];
    if (value === undefined || value === null) return required ? this.fail(`${path}.${key}`, 'This field is required') : undefined;
    if (typeof value !== 'string') return this.fail(`${path}.${key}`, 'Must be a string');
    const length = [...value].length;
    if (length < min || length > max) return this.fail(`${path}.${key}`, `Must be between ${min} and ${max} in length.`);
    return value;
  }

  integer(object: Input, key: string, path: string, min: number, max: number): number | undefined {
    const value = object[key];
    if (value === undefined || value === null) return undefined;
    if (!Number.isInteger(value) || (value as number) < min || (value as number) > max)
      return this.fail(`${path}.${key}`, `Must be an integer from ${min} to ${max}`);
    return value as number;
  }

  boolean(object: Input, key: string, path: string): boolean | undefined {
    const value = object[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') return this.fail(`${path}.${key}`, 'Must be a boolean');
    return value;
  }

  emoji(object: Input, path: string): ComponentEmoji | undefined {
    if (object.emoji === undefined || object.emoji === null) return undefined;
    const emoji = this.object(object.emoji, `${path}.emoji`);
    if (!emoji) return undefined;
    const id = emoji.id;
    if (id !== undefined && id !== null && (typeof id !== 'string' || !/^\d{1,20}$/.test(id))) return this.fail(`${path}.emoji.id`, 'Must be a snowflake');
    const name = this.text(emoji, 'name', `${path}.emoji`, 1, 100, !id);
    const animated = this.boolean(emoji, 'animated', `${path}.emoji`);
    return compact({ name: name ?? null, id: (id as string | null | undefined) ?? undefined, animated });
  }

  customId(object: Input, path: string, required: boolean): string | undefined {
    const id = this.text(object, 'custom_id', path, 1, 100, required);
    if (id === undefined) return undefined;
    const first = this.customIds.get(id);
    if (first) return this.fail(`${path}.custom_id`, `Duplicate custom_id: already used at ${first}`);
    this.customIds.set(id, `${path}.custom_id`);
    return id;
  }

  button(input: Input, path: string): Button | undefined {
    const style = input.style;
    if (!Number.isInteger(style) || (style as number) < 1 || (style as number) > 5) {
      return this.fail(`${path}.style`, style === undefined ? 'This field is required' : 'Must be an integer from 1 to 5');
    }
    const link = style === ButtonStyle.LINK;
    let url: string | undefined;
    if (link) {
      if (input.custom_id !== undefined) this.fail(`${path}.custom_id`, 'A link button cannot have a custom_id');
      url = this.text(input, 'url', path, 1, 512, true);
      if (url !== undefined && !isHttpsUrl(url)) this.fail(`${path}.url`, 'Must be an https:// URL');
    } else if (input.url !== undefined) {
      this.fail(`${path}.url`, 'Only link buttons (style 5) have a url');
    }
    return compact({
      type: ComponentType.BUTTON,
      style: style as number,
      label: this.text(input, 'label', path, 1, 80, false),
      emoji: this.emoji(input, path),
      custom_id: link ? undefined : this.customId(input, path, true),
      url,
      disabled: this.boolean(input, 'disabled', path),
    });
  }

  option(value: unknown, path: string): SelectOption | undefined {
    const input = this.object(value, path);
    if (!input) return undefined;
    return compact({
      label: this.text(input, 'label', path, 1, 100, true)!,
      value: this.text(input, 'value', path, 1, 100, true)!,
      description: this.text(input, 'description', path, 1, 100, false),
      emoji: this.emoji(input, path),
      default: this.boolean(input, 'default', path),
    });
  }

  stringSelect(input: Input, path: string): StringSelect | undefined {
    const options: SelectOption[] = [];
    if (!Array.isArray(input.options)) this.fail(`${path}.options`, input.options === undefined ? 'This field is required' : 'Must be an array');
    else if (input.options.length < 1 || input.options.length > MAX_OPTIONS) this.fail(`${path}.options`, `Must have between 1 and ${MAX_OPTIONS} options`);
    else {
      const values = new Set<string>();
      input.options.forEach((value, i) => {
        const option = this.option(value, `${path}.options.${i}`);
        if (!option) return;
        if (values.has(option.value)) this.fail(`${path}.options.${i}.value`, 'Option values must be unique');
        values.add(option.value);
        options.push(option);
      });
    }
    const min = this.integer(input, 'min_values', path, 0, MAX_OPTIONS);
    const max = this.integer(input, 'max_values', path, 1, MAX_OPTIONS);
    if (min !== undefined && max !== undefined && min > max) this.fail(`${path}.min_values`, 'Must not be greater than max_values');
    if (max !== undefined && Array.isArray(input.options) && max > input.options.length)
      this.fail(`${path}.max_values`, 'Must not be greater than the number of options');
    return compact({
      type: ComponentType.STRING_SELECT,
      custom_id: this.customId(input, path, true)!,
      placeholder: this.text(input, 'placeholder', path, 0, 150, false),
      options,
      min_values: min,
      max_values: max,
      disabled: this.boolean(input, 'disabled', path),
    });
  }

  child(value: unknown, path: string): RowChild | undefined {
    const input = this.object(value, path);
    if (!input) return undefined;
    if (input.type === ComponentType.BUTTON) return this.button(input, path);
    if (input.type === ComponentType.STRING_SELECT) return this.stringSelect(input, path);
    if (OPAQUE_TYPES.includes(input.type as number)) return input as OpaqueComponent;
    return this.fail(`${path}.type`, 'Must be a button (2), a string select (3) or one of the types 4-8');
  }

  row(input: Input, path: string): ActionRow | undefined {
    const children = input.components;
    if (!Array.isArray(children)) return this.fail(`${path}.components`, children === undefined ? 'This field is required' : 'Must be an array');
    if (children.length < 1 || children.length > MAX_ROW_CHILDREN)
      return this.fail(`${path}.components`, `Must have between 1 and ${MAX_ROW_CHILDREN} components`);
    const types = children.map((child) => (child as Input | null)?.type);
    if (types.includes(ComponentType.STRING_SELECT) && children.length > 1) {
      this.fail(`${path}.components`, 'A string select must be alone in its action row');
    } else if (types.includes(ComponentType.BUTTON) && types.some((type) => SELECT_TYPES.includes(type as number))) {
      this.fail(`${path}.components`, 'An action row holding a select menu cannot also hold buttons');
    }
    const checked = children.map((child, i) => this.child(child, `${path}.components.${i}`));
    return { type: ComponentType.ACTION_ROW, components: checked.filter((c): c is RowChild => c !== undefined) };
  }

  component(value: unknown, path: string): Component | undefined {
    const input = this.object(value, path);
    if (!input) return undefined;
    if (input.type === ComponentType.ACTION_ROW) return this.row(input, path);
    if (OPAQUE_TYPES.includes(input.type as number)) return input as OpaqueComponent;
    return this.fail(`${path}.type`, 'Must be an action row (1); buttons and selects go inside rows');
  }
}

function isHttpsUrl(value: string): boolean {
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

/** Drops the keys whose value is undefined, so stored components carry only what was set. */
function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** Checks a message's `components` and returns them normalized; refuses with INVALID_FORM_BODY listing every problem. */
export function validateComponents(value: unknown, path = 'components'): Component[] {
  const checker = new Checker();
  if (!Array.isArray(value)) throw invalidForm([{ path, message: 'Must be an array' }]);
  if (value.length > MAX_ROWS) throw invalidForm([{ path, message: `Must have at most ${MAX_ROWS} action rows` }]);
  const components = value.map((component, i) => checker.component(component, `${path}.${i}`));
  if (checker.errors.length) throw invalidForm(checker.errors);
  return components as Component[];
}
