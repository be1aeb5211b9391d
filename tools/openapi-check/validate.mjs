// Validates an OpenAPI 3.1 document: node validate.mjs FILE [NAME], where
// NAME is what messages call the document (default: FILE).
//
// 1. @seriousme/openapi-schema-validator checks the document against the
//    official OpenAPI 3.1 JSON schema and checks that every $ref resolves.
// 2. That official schema deliberately lets any object through where a Schema
//    Object goes, so each Schema Object (components.schemas and every
//    `schema` of a parameter, header or media type) is checked here against
//    the JSON Schema 2020-12 meta-schema, the dialect OpenAPI 3.1 uses.
// 3. Two rules of the specification no JSON schema can express: every
//    {name} in a path has a required `in: path` parameter and every path
//    parameter appears in its path; operationIds are unique.
//
// Prints every problem found and exits 1 if there is any.
import { readFileSync } from "node:fs";
import { argv, exit } from "node:process";
import { Validator } from "@seriousme/openapi-schema-validator";
import Ajv2020Module from "ajv/dist/2020.js";

const file = argv[2];
if (!file) {
  console.error("usage: node validate.mjs FILE [NAME]");
  exit(2);
}
const name = argv[3] ?? file;
const problems = [];

const validator = new Validator();
const result = await validator.validate(file);
if (!result.valid) {
  problems.push(
    "official OpenAPI schema: " + JSON.stringify(result.errors, null, 2),
  );
}
if (validator.version !== "3.1") {
  problems.push(`expected an OpenAPI 3.1 document, found ${validator.specificationVersion}`);
}

const doc = JSON.parse(readFileSync(file, "utf8"));
const pointer = (parts) =>
  "#/" + parts.map((p) => String(p).replaceAll("~", "~0").replaceAll("/", "~1")).join("/");

// 2. Schema Objects against the JSON Schema 2020-12 meta-schema.
const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;
const ajv = new Ajv2020({ strict: false, validateFormats: false });
let schemaCount = 0;
const checkSchema = (schema, parts) => {
  schemaCount++;
  if (!ajv.validateSchema(schema)) {
    problems.push(`${pointer(parts)}: not a JSON Schema 2020-12 schema: ${ajv.errorsText(ajv.errors)}`);
  }
};
for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
  checkSchema(schema, ["components", "schemas", name]);
}
// Every other `schema` key outside Schema Objects and examples.
const walk = (node, parts) => {
  if (node === null || typeof node !== "object") return;
  for (const [key, value] of Object.entries(node)) {
    if (key === "example" || key === "examples") continue;
    if (key === "schema" && !Array.isArray(node)) checkSchema(value, [...parts, key]);
    else walk(value, [...parts, key]);
  }
};
walk(doc.paths ?? {}, ["paths"]);
walk(doc.webhooks ?? {}, ["webhooks"]);
const { schemas: _skip, ...otherComponents } = doc.components ?? {};
walk(otherComponents, ["components"]);

// 3. Path templates and operationIds.
const resolve = (p) => {
  if (!p?.$ref) return p;
  return p.$ref
    .slice(2)
    .split("/")
    .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce((o, k) => o?.[k], doc);
};
const methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const operationIds = new Map();
let operationCount = 0;
for (const [path, item] of Object.entries(doc.paths ?? {})) {
  const inTemplate = new Set([...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]));
  const shared = (item.parameters ?? []).map(resolve);
  for (const method of methods) {
    const op = item[method];
    if (!op) continue;
    operationCount++;
    const where = `${method.toUpperCase()} ${path}`;
    if (op.operationId) {
      if (operationIds.has(op.operationId)) {
        problems.push(`${where}: operationId ${op.operationId} is also used by ${operationIds.get(op.operationId)}`);
      }
      operationIds.set(op.operationId, where);
    }
    const own = (op.parameters ?? []).map(resolve);
    const byKey = new Map();
    for (const p of [...shared, ...own]) byKey.set(`${p.in}:${p.name}`, p);
    const pathParams = [...byKey.values()].filter((p) => p.in === "path");
    for (const name of inTemplate) {
      if (!pathParams.some((p) => p.name === name)) {
        problems.push(`${where}: {${name}} has no "in: path" parameter`);
      }
    }
    for (const p of pathParams) {
      if (!inTemplate.has(p.name)) problems.push(`${where}: path parameter ${p.name} is not in the path`);
      if (p.required !== true) problems.push(`${where}: path parameter ${p.name} must have required: true`);
    }
  }
}

if (problems.length > 0) {
  console.error(`${name} is not a valid OpenAPI 3.1 document:`);
  for (const p of problems) console.error("  " + p);
  exit(1);
}
console.log(
  `${name} is valid OpenAPI ${validator.specificationVersion}: ${operationCount} operations, ${schemaCount} schema objects checked`,
);
