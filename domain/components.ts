// Message components as the spec's tables: action rows (type 1) holding buttons (type 2) or one select menu: a string
// select (type 3) or a user, role, mentionable or channel select (types 5-8, whose options are the place's users,
// roles and channels, and whose default_values name some). Type 4 (a modal's text input) is kept as sent. A message
// with the flag IS_COMPONENTS_V2 takes the widely used API's layout components instead of content and embeds:
// sections, text displays, thumbnails, media galleries, files, separators and containers, at most 40 components in
// all. Each component is checked field by field and rebuilt from its known fields; every problem is reported with its
// dot/index path (components.0.components.1.custom_id). Shared by message sends, edits, webhook executions and
// interaction responses.
import { ATTACHMENT_SCHEME } from './embeds.js';
import { type FieldError, invalidForm } from './errors.js';

export const ComponentType = {
  ACTION_ROW: 1,
  BUTTON: 2,
  STRING_SELECT: 3,
  USER_SELECT: 5,
  ROLE_SELECT: 6,
  MENTIONABLE_SELECT: 7,
  CHANNEL_SELECT: 8,
  SECTION: 9,
  TEXT_DISPLAY: 10,
  THUMBNAIL: 11,
  MEDIA_GALLERY: 12,
  FILE: 13,
  SEPARATOR: 14,
  CONTAINER: 17,
} as const;
/** A modal's text input: kept as sent in a message, passed through to bots. */
const OPAQUE_TYPES = [4];
/** The selects whose options are the place's users, roles and channels, and the kinds of default value each takes. */
export const ENTITY_SELECT_DEFAULTS: Record<number, readonly DefaultValue['type'][]> = {
  [ComponentType.USER_SELECT]: ['user'],
  [ComponentType.ROLE_SELECT]: ['role'],
  [ComponentType.MENTIONABLE_SELECT]: ['user', 'role'],
  [ComponentType.CHANNEL_SELECT]: ['channel'],
};
/** Every select menu type: a row holding one cannot also hold buttons. */
const SELECT_TYPES = [3, 5, 6, 7, 8];
export const ButtonStyle = { PRIMARY: 1, SECONDARY: 2, SUCCESS: 3, DANGER: 4, LINK: 5 } as const;
/** The message flag that trades content and embeds for layout components. */
export const IS_COMPONENTS_V2 = 1 << 15;

export const MAX_ROWS = 5;
export const MAX_ROW_CHILDREN = 5;
const MAX_OPTIONS = 25;
/** The widely used API's limits on a Components V2 message. */
export const MAX_V2_COMPONENTS = 40;
export const MAX_V2_TEXT_LENGTH = 4000;
const MAX_SECTION_TEXTS = 3;
const MAX_GALLERY_ITEMS = 10;
const MAX_MEDIA_DESCRIPTION = 1024;
const MAX_COMPONENT_ID = 2 ** 31 - 1;

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

export interface DefaultValue {
  id: string;
  type: 'user' | 'role' | 'channel';
}

/** A user (5), role (6), mentionable (7) or channel (8) select. */
export interface EntitySelect {
  type: 5 | 6 | 7 | 8;
  custom_id: string;
  placeholder?: string;
  min_values?: number;
  max_values?: number;
  disabled?: boolean;
  /** Channel selects: the channel types offered. */
  channel_types?: number[];
  default_values?: DefaultValue[];
}

/** A component of type 4, kept as sent. */
export type OpaqueComponent = { type: number } & Record<string, unknown>;

export type RowChild = Button | StringSelect | EntitySelect | OpaqueComponent;

export interface ActionRow {
  type: 1;
  id?: number;
  components: RowChild[];
}

/** An image or file: an https/http URL, or attachment://<filename> naming one of the message's attachments. */
export interface UnfurledMedia {
  url: string;
}

export interface TextDisplay {
  type: 10;
  id?: number;
  content: string;
}

export interface Thumbnail {
  type: 11;
  id?: number;
  media: UnfurledMedia;
  description?: string | null;
  spoiler?: boolean;
}

export interface Section {
  type: 9;
  id?: number;
  components: TextDisplay[];
  accessory: Thumbnail | Button;
}

export interface MediaGallery {
  type: 12;
  id?: number;
  items: { media: UnfurledMedia; description?: string | null; spoiler?: boolean }[];
}

export interface FileComponent {
  type: 13;
  id?: number;
  file: UnfurledMedia;
  spoiler?: boolean;
}

export interface Separator {
  type: 14;
  id?: number;
  divider?: boolean;
  spacing?: 1 | 2;
}

export type ContainerChild = ActionRow | TextDisplay | Section | MediaGallery | Separator | FileComponent;

export interface Container {
  type: 17;
  id?: number;
  components: ContainerChild[];
  accent_color?: number | null;
  spoiler?: boolean;
}

export type Component = ActionRow | Section | TextDisplay | MediaGallery | FileComponent | Separator | Container | OpaqueComponent;

type Input = Record<string, unknown>;

class Checker {
  readonly errors: FieldError[] = [];
  readonly customIds = new Map<string, string>();
  private readonly ids = new Map<number, string>();
  /** Components and text display characters so far, for the Components V2 limits. */
  count = 0;
  textLength = 0;

  constructor(private readonly v2: boolean) {}

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

  /** The optional numeric `id` every component may carry, unique in the message. */
  componentId(input: Input, path: string): number | undefined {
    this.count++;
    const id = this.integer(input, 'id', path, 0, MAX_COMPONENT_ID);
    if (id === undefined) return undefined;
    const first = this.ids.get(id);
    if (first) return this.fail(`${path}.id`, `Duplicate id: already used at ${first}`);
    this.ids.set(id, `${path}.id`);
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
      id: this.componentId(input, path),
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
      id: this.componentId(input, path),
      custom_id: this.customId(input, path, true)!,
      placeholder: this.text(input, 'placeholder', path, 0, 150, false),
      options,
      min_values: min,
      max_values: max,
      disabled: this.boolean(input, 'disabled', path),
    });
  }

  /** A user, role, mentionable or channel select: its options are the place's, its default values name some. */
  entitySelect(input: Input, path: string): EntitySelect | undefined {
    const type = input.type as EntitySelect['type'];
    const min = this.integer(input, 'min_values', path, 0, MAX_OPTIONS);
    const max = this.integer(input, 'max_values', path, 1, MAX_OPTIONS);
    if (min !== undefined && max !== undefined && min > max) this.fail(`${path}.min_values`, 'Must not be greater than max_values');
    let channelTypes: number[] | undefined;
    if (input.channel_types !== undefined && input.channel_types !== null) {
      if (type !== ComponentType.CHANNEL_SELECT) this.fail(`${path}.channel_types`, 'Only channel selects (8) have channel_types');
      else if (!Array.isArray(input.channel_types) || !input.channel_types.every((t) => Number.isInteger(t) && t >= 0 && t <= 255))
        this.fail(`${path}.channel_types`, 'Must be an array of channel types');
      else channelTypes = [...new Set(input.channel_types as number[])];
    }
    return compact({
      type,
      id: this.componentId(input, path),
      custom_id: this.customId(input, path, true)!,
      placeholder: this.text(input, 'placeholder', path, 0, 150, false),
      min_values: min,
      max_values: max,
      disabled: this.boolean(input, 'disabled', path),
      channel_types: channelTypes,
      default_values: this.defaultValues(input, path, ENTITY_SELECT_DEFAULTS[type], min ?? 1, max ?? 1),
    });
  }

  /** default_values: {id, type} of the kinds the select offers, as many as it lets be chosen, each once. */
  defaultValues(input: Input, path: string, kinds: readonly DefaultValue['type'][], min: number, max: number): DefaultValue[] | undefined {
    const value = input.default_values;
    if (value === undefined || value === null) return undefined;
    const at = `${path}.default_values`;
    if (!Array.isArray(value)) return this.fail(at, 'Must be an array');
    if (value.length < min || value.length > max) this.fail(at, `Must have between ${min} and ${max} values, as min_values and max_values allow`);
    const seen = new Set<string>();
    const defaults = value.flatMap((entry, i): DefaultValue[] => {
      const item = this.object(entry, `${at}.${i}`);
      if (!item) return [];
      const id = item.id;
      if (typeof id !== 'string' || !/^\d{1,20}$/.test(id)) return (this.fail(`${at}.${i}.id`, 'Must be a snowflake'), []);
      if (!kinds.includes(item.type as DefaultValue['type'])) return (this.fail(`${at}.${i}.type`, `Must be one of: ${kinds.join(', ')}`), []);
      if (seen.has(id)) return (this.fail(`${at}.${i}.id`, 'Given more than once'), []);
      seen.add(id);
      return [{ id, type: item.type as DefaultValue['type'] }];
    });
    return defaults;
  }

  child(value: unknown, path: string): RowChild | undefined {
    const input = this.object(value, path);
    if (!input) return undefined;
    if (input.type === ComponentType.BUTTON) return this.button(input, path);
    if (input.type === ComponentType.STRING_SELECT) return this.stringSelect(input, path);
    if (ENTITY_SELECT_DEFAULTS[input.type as number]) return this.entitySelect(input, path);
    if (OPAQUE_TYPES.includes(input.type as number)) return (this.count++, input as OpaqueComponent);
    return this.fail(`${path}.type`, 'Must be a button (2) or a select menu (3, 5-8)');
  }

  row(input: Input, path: string): ActionRow | undefined {
    const id = this.componentId(input, path);
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
    return compact({ type: ComponentType.ACTION_ROW, id, components: checked.filter((c): c is RowChild => c !== undefined) });
  }

  /** An image or file reference: http(s), or attachment://<filename> (`attachmentOnly`: a file component's must be). */
  media(input: Input, key: string, path: string, attachmentOnly: boolean): UnfurledMedia | undefined {
    const media = input[key] === undefined ? this.fail(`${path}.${key}`, 'This field is required') : this.object(input[key], `${path}.${key}`);
    if (!media) return undefined;
    const url = this.text(media, 'url', `${path}.${key}`, 1, 2048, true);
    if (url === undefined) return undefined;
    if (attachmentOnly ? !url.startsWith(ATTACHMENT_SCHEME) : !url.startsWith(ATTACHMENT_SCHEME) && !isWebUrl(url))
      return this.fail(`${path}.${key}.url`, attachmentOnly ? 'Must be attachment://<filename>' : 'Must be an http(s):// or attachment:// URL');
    return { url };
  }

  textDisplay(input: Input, path: string): TextDisplay | undefined {
    const id = this.componentId(input, path);
    const content = this.text(input, 'content', path, 1, MAX_V2_TEXT_LENGTH, true);
    if (content === undefined) return undefined;
    this.textLength += [...content].length;
    return compact({ type: ComponentType.TEXT_DISPLAY, id, content });
  }

  thumbnail(input: Input, path: string): Thumbnail | undefined {
    return compact({
      type: ComponentType.THUMBNAIL,
      id: this.componentId(input, path),
      media: this.media(input, 'media', path, false)!,
      description: this.text(input, 'description', path, 0, MAX_MEDIA_DESCRIPTION, false),
      spoiler: this.boolean(input, 'spoiler', path),
    });
  }

  /** A section: one to three text displays, beside a thumbnail or a button. */
  section(input: Input, path: string): Section | undefined {
    const id = this.componentId(input, path);
    const texts = this.list(input, 'components', path, 1, MAX_SECTION_TEXTS, (child, at) =>
      child.type === ComponentType.TEXT_DISPLAY ? this.textDisplay(child, at) : this.fail(`${at}.type`, 'Must be a text display (10)'),
    );
    const accessory =
      input.accessory === undefined ? this.fail(`${path}.accessory`, 'This field is required') : this.object(input.accessory, `${path}.accessory`);
    let checked: Thumbnail | Button | undefined;
    if (accessory?.type === ComponentType.THUMBNAIL) checked = this.thumbnail(accessory, `${path}.accessory`);
    else if (accessory?.type === ComponentType.BUTTON) checked = this.button(accessory, `${path}.accessory`);
    else if (accessory) this.fail(`${path}.accessory.type`, 'Must be a thumbnail (11) or a button (2)');
    return compact({ type: ComponentType.SECTION, id, components: texts as TextDisplay[], accessory: checked! });
  }

  mediaGallery(input: Input, path: string): MediaGallery | undefined {
    const id = this.componentId(input, path);
    const items = this.list(input, 'items', path, 1, MAX_GALLERY_ITEMS, (item, at) =>
      compact({
        media: this.media(item, 'media', at, false)!,
        description: this.text(item, 'description', at, 0, MAX_MEDIA_DESCRIPTION, false),
        spoiler: this.boolean(item, 'spoiler', at),
      }),
    );
    return compact({ type: ComponentType.MEDIA_GALLERY, id, items });
  }

  file(input: Input, path: string): FileComponent | undefined {
    return compact({
      type: ComponentType.FILE,
      id: this.componentId(input, path),
      file: this.media(input, 'file', path, true)!,
      spoiler: this.boolean(input, 'spoiler', path),
    });
  }

  separator(input: Input, path: string): Separator | undefined {
    return compact({
      type: ComponentType.SEPARATOR,
      id: this.componentId(input, path),
      divider: this.boolean(input, 'divider', path),
      spacing: this.integer(input, 'spacing', path, 1, 2) as Separator['spacing'],
    });
  }

  container(input: Input, path: string): Container | undefined {
    const id = this.componentId(input, path);
    const children = this.list(input, 'components', path, 1, MAX_V2_COMPONENTS, (child, at) =>
      child.type === ComponentType.CONTAINER ? this.fail(`${at}.type`, 'A container cannot hold another container') : this.layout(child, at),
    );
    const color = input.accent_color;
    if (color !== undefined && color !== null) this.integer(input, 'accent_color', path, 0, 0xffffff);
    return compact({
      type: ComponentType.CONTAINER,
      id,
      components: children as ContainerChild[],
      accent_color: color as number | null | undefined,
      spoiler: this.boolean(input, 'spoiler', path),
    });
  }

  /** A list of `min..max` objects under `key`, each checked by `check`. */
  list<T>(input: Input, key: string, path: string, min: number, max: number, check: (item: Input, path: string) => T | undefined): T[] {
    const value = input[key];
    if (!Array.isArray(value)) return (this.fail(`${path}.${key}`, value === undefined ? 'This field is required' : 'Must be an array'), []);
    if (value.length < min || value.length > max) return (this.fail(`${path}.${key}`, `Must have between ${min} and ${max} entries`), []);
    return value.flatMap((item, i) => {
      const object = this.object(item, `${path}.${key}.${i}`);
      const checked = object && check(object, `${path}.${key}.${i}`);
      return checked === undefined ? [] : [checked];
    });
  }

  /** A top-level component of a Components V2 message (or a container's child, the container aside). */
  layout(input: Input, path: string): Component | undefined {
    switch (input.type) {
      case ComponentType.ACTION_ROW:
        return this.row(input, path);
      case ComponentType.SECTION:
        return this.section(input, path);
      case ComponentType.TEXT_DISPLAY:
        return this.textDisplay(input, path);
      case ComponentType.MEDIA_GALLERY:
        return this.mediaGallery(input, path);
      case ComponentType.FILE:
        return this.file(input, path);
      case ComponentType.SEPARATOR:
        return this.separator(input, path);
      case ComponentType.CONTAINER:
        return this.container(input, path);
      default:
        return this.fail(
          `${path}.type`,
          'Must be an action row (1), a section (9), a text display (10), a media gallery (12), a file (13), a separator (14) or a container (17)',
        );
    }
  }

  component(value: unknown, path: string): Component | undefined {
    const input = this.object(value, path);
    if (!input) return undefined;
    if (this.v2) return this.layout(input, path);
    if (input.type === ComponentType.ACTION_ROW) return this.row(input, path);
    if (OPAQUE_TYPES.includes(input.type as number)) return (this.count++, input as OpaqueComponent);
    return this.fail(
      `${path}.type`,
      'Must be an action row (1); buttons and selects go inside rows, and layout components need the flag IS_COMPONENTS_V2 (32768)',
    );
  }
}

function isHttpsUrl(value: string): boolean {
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

function isWebUrl(value: string): boolean {
  try {
    return ['https:', 'http:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** Drops the keys whose value is undefined, so stored components carry only what was set. */
function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * Checks a message's `components` and returns them normalized; refuses with INVALID_FORM_BODY listing every problem.
 * `v2`: the message has the flag IS_COMPONENTS_V2, and takes layout components (at most 40 in all, nested ones
 * included, with at most 4000 characters of text displays) instead of at most 5 action rows.
 */
export function validateComponents(value: unknown, v2 = false, path = 'components'): Component[] {
  const checker = new Checker(v2);
  if (!Array.isArray(value)) throw invalidForm([{ path, message: 'Must be an array' }]);
  if (!v2 && value.length > MAX_ROWS) throw invalidForm([{ path, message: `Must have at most ${MAX_ROWS} action rows` }]);
  const components = value.map((component, i) => checker.component(component, `${path}.${i}`));
  if (checker.count > MAX_V2_COMPONENTS) checker.fail(path, `Must have at most ${MAX_V2_COMPONENTS} components in all, nested ones included`);
  if (checker.textLength > MAX_V2_TEXT_LENGTH) checker.fail(path, `The text displays must hold at most ${MAX_V2_TEXT_LENGTH} characters in all`);
  if (checker.errors.length) throw invalidForm(checker.errors);
  return components as Component[];
}

/** The components a person can use (buttons and selects), wherever they sit: in rows, containers or sections. */
export function interactiveComponents(components: readonly Component[]): RowChild[] {
  return components.flatMap((component): RowChild[] => {
    switch (component.type) {
      case ComponentType.ACTION_ROW:
        return (component as ActionRow).components;
      case ComponentType.CONTAINER:
        return interactiveComponents((component as Container).components);
      case ComponentType.SECTION:
        return [(component as Section).accessory].filter((c): c is Button => c.type === ComponentType.BUTTON);
      default:
        return [];
    }
  });
}

/** The attachment:// names a component (a file, a thumbnail, a gallery, or what it holds) refers to, with their paths. */
function attachmentRefs(component: unknown, at: string): { name: string; path: string }[] {
  const c = component as Record<string, unknown>;
  const own = (['media', 'file'] as const).flatMap((key) => {
    const url = (c[key] as UnfurledMedia | undefined)?.url;
    return url?.startsWith(ATTACHMENT_SCHEME) ? [{ name: url.slice(ATTACHMENT_SCHEME.length), path: `${at}.${key}.url` }] : [];
  });
  const nested = (['components', 'items'] as const).flatMap((key) =>
    Array.isArray(c[key]) ? (c[key] as unknown[]).flatMap((child, i) => attachmentRefs(child, `${at}.${key}.${i}`)) : [],
  );
  return [...own, ...nested, ...(c.accessory ? attachmentRefs(c.accessory, `${at}.accessory`) : [])];
}

/** Components that name an attachment:// file the message does not have, at their paths. */
export function componentAttachmentErrors(components: readonly Component[], attachments: readonly { filename: string }[]): FieldError[] {
  return components
    .flatMap((component, i) => attachmentRefs(component, `components.${i}`))
    .filter((ref) => !attachments.some((a) => a.filename === ref.name))
    .map((ref) => ({ path: ref.path, message: `Unknown attachment: ${ref.name}` }));
}
