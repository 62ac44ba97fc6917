// Generates the event catalogue's schemas (eventSchemas.json beside this file) from the code's own declarations: the
// members of the domain's event union (ParleyEvent, domain/events.ts) as the TypeScript checker resolves it, each
// turned into JSON Schema by ts-json-schema-generator from the type alias its decider's module exports. Run it after
// changing an event (`npm run events:schemas`); test/http/asyncapi.test.ts regenerates it and fails on any difference.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { createGenerator } from 'ts-json-schema-generator';
import ts from 'typescript';

type Schema = Record<string, unknown>;

/** What the generated file holds: every event type's data, the definitions they share, and the gateway's dispatch names. */
export interface EventSchemas {
  definitions: Record<string, Schema>;
  events: Record<string, { declaredIn: string; description?: string; data: Schema }>;
  /** The names a gateway dispatch may have (gateway/protocol.ts DispatchData): their data is the widely used API's. */
  dispatches: string[];
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EVENTS = 'domain/events.ts';
const PROTOCOL = 'gateway/protocol.ts';
export const OUTPUT = fileURLToPath(new URL('./eventSchemas.json', import.meta.url));

function program(): ts.Program {
  return ts.createProgram([`${ROOT}${EVENTS}`, `${ROOT}${PROTOCOL}`], {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
  });
}

/** The type an exported alias of `file` declares, as the checker resolves it. */
function aliasType(checker: ts.TypeChecker, source: ts.SourceFile, name: string): ts.Type {
  const alias = source.statements.find((s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === name);
  if (!alias) throw new Error(`${source.fileName} declares no ${name}`);
  return checker.getTypeAtLocation(alias.name);
}

/** Each member of the event union: its type name, and the exported alias (and module) that declares it. */
function unionMembers(checker: ts.TypeChecker, source: ts.SourceFile): { type: string; alias: string; file: string }[] {
  return (aliasType(checker, source, 'ParleyEvent') as ts.UnionType).types
    .map((member) => {
      const name = checker.getTypeOfSymbol(member.getProperty('type')!);
      const alias = member.aliasSymbol;
      const declaration = alias?.declarations?.[0];
      if (!alias || !declaration || !name.isStringLiteral())
        throw new Error(`${checker.typeToString(member)}: an event must be an exported alias with a literal type`);
      return { type: name.value, alias: alias.name, file: declaration.getSourceFile().fileName.slice(ROOT.length) };
    })
    .sort((a, b) => a.type.localeCompare(b.type));
}

/** The names of DispatchData (gateway/protocol.ts): every dispatch the gateway's types allow. */
function dispatchNames(checker: ts.TypeChecker, source: ts.SourceFile): string[] {
  return checker
    .getPropertiesOfType(aliasType(checker, source, 'DispatchData'))
    .map((p) => p.name)
    .sort();
}

/** A definition's name as AsyncAPI's component keys allow it (`Foo<"x">` has characters they do not). */
const keyOf = (name: string) => name.replace(/[^A-Za-z0-9._-]+/g, '_');

/** `schema` with every `#/definitions/X` reference renamed to `prefix` + keyOf(X). */
function withRefs(schema: unknown, prefix: string): unknown {
  if (Array.isArray(schema)) return schema.map((item) => withRefs(item, prefix));
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) =>
      key === '$ref' && typeof value === 'string' && value.startsWith('#/definitions/')
        ? [key, prefix + keyOf(decodeURIComponent(value.slice('#/definitions/'.length)))]
        : [key, withRefs(value, prefix)],
    ),
  );
}

export function generateEventSchemas(): EventSchemas {
  const checking = program();
  const checker = checking.getTypeChecker();
  const members = unionMembers(checker, checking.getSourceFile(`${ROOT}${EVENTS}`)!);
  const dispatches = dispatchNames(checker, checking.getSourceFile(`${ROOT}${PROTOCOL}`)!);
  const files = [...new Set(members.map((m) => m.file))].sort();
  const generator = createGenerator({
    path: `${ROOT}{${files.join(',')}}`,
    tsconfig: `${ROOT}tsconfig.json`,
    skipTypeCheck: true,
    expose: 'export',
    topRef: false,
    jsDoc: 'extended',
    additionalProperties: true,
  });
  const definitions: Record<string, Schema> = {};
  const events: EventSchemas['events'] = {};
  for (const member of members) {
    const schema = generator.createSchema(member.alias) as Schema & { $ref?: string; definitions?: Record<string, Schema> };
    // The alias names an instance of DomainEvent<Type, Data>: its definition is the event, the rest what its data uses.
    const wrapper = schema.$ref ? decodeURIComponent(schema.$ref.slice('#/definitions/'.length)) : null;
    const event = (wrapper ? schema.definitions?.[wrapper] : schema) as { properties?: Record<string, Schema> } | undefined;
    const data = event?.properties?.data;
    if (!data) throw new Error(`${member.alias}: no data in its schema`);
    for (const [name, definition] of Object.entries(schema.definitions ?? {}))
      if (name !== wrapper) definitions[keyOf(name)] = withRefs(definition, '#/definitions/') as Schema;
    events[member.type] = {
      declaredIn: member.file,
      ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
      data: withRefs(data, '#/definitions/') as Schema,
    };
  }
  return { definitions: Object.fromEntries(Object.entries(definitions).sort(([a], [b]) => a.localeCompare(b))), events, dispatches };
}

/** The file's text, as the repository's formatter writes JSON (its check runs over every file). */
export const serialized = async (schemas: EventSchemas) => format(JSON.stringify(schemas), { ...(await resolveConfig(OUTPUT)), filepath: OUTPUT });

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(OUTPUT, await serialized(generateEventSchemas()));
  process.stdout.write(`wrote ${OUTPUT}\n`);
}
