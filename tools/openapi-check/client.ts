// A small hand-written client of fount's API, typed only through the types
// openapi-typescript generates from the OpenAPI document (schema.d.ts, made by
// check.sh next to a copy of this file). It compiles under tsc --strict only
// if the document still describes these operations, fields and types; the
// expected errors at the end fail the check if the generated types degrade
// to `any` or lose a required field.
import type { components, paths } from "./schema";

type Json<R> = R extends { content: { "application/json": infer B } } ? B : never;

export type Source = components["schemas"]["Source"];
export type Webhook = components["schemas"]["Webhook"];
export type ApiError = components["schemas"]["Error"];
export type PageInfo = components["schemas"]["PageInfo"];

export type CreateSourceBody = Json<NonNullable<paths["/v1/sources"]["post"]["requestBody"]>>;
export type CreatedSource = Json<paths["/v1/sources"]["post"]["responses"][200]>;
export type MySources = paths["/v1/users/me/sources"]["get"]["responses"][200]["content"]["application/json"];
export type MySourcesQuery = NonNullable<paths["/v1/users/me/sources"]["get"]["parameters"]["query"]>;
export type UpdateSourcePath = paths["/v1/sources/{id}"]["put"]["parameters"]["path"];
export type CreateWebhookQuery = paths["/v1/webhooks"]["post"]["parameters"]["query"];
export type CreatedWebhook = Json<paths["/v1/webhooks"]["post"]["responses"][200]>;
export type ErrorResponse = Json<paths["/v1/sources"]["post"]["responses"]["default"]>;

/** The body of POST /v1/sources deploying a saved component. */
export function deployBody(componentId: string, props: Record<string, unknown>): CreateSourceBody {
  return { component_id: componentId, configured_props: props, name: "my-source" };
}

/** The id of the source a deploy created. */
export function deployedId(res: CreatedSource): string {
  const source: Source = res.data;
  return source.id;
}

/** The id of the first source of a page, if the page has any. */
export function firstSourceId(page: MySources): string | undefined {
  if (page.data.length === 0) return undefined; // lists are never null
  return page.data[0].id;
}

/** The query for the page after this one, if there is one. */
export function nextPage(page: MySources, limit: number): MySourcesQuery | undefined {
  const info: PageInfo = page.page_info;
  if (info.count < limit) return undefined;
  return { limit, after: info.end_cursor };
}

/** The value of one configured prop of a source. */
export function configuredProp(source: Source, name: string): unknown {
  return source.configured_props[name]; // never null
}

/** Whether the source was created before a time in the API's own units. */
export function createdBefore(source: Source, t: number): boolean {
  return source.created_at < t;
}

export function updatePath(id: string): UpdateSourcePath {
  return { id };
}

/** POST /v1/webhooks takes its fields in the query; url is required. */
export function webhookQuery(url: string, name?: string): CreateWebhookQuery {
  return name === undefined ? { url } : { url, name };
}

/** Where a created webhook delivers, and its signing secret when shown. */
export function webhookTarget(res: CreatedWebhook): { url: string; secret: string | undefined } {
  const hook: Webhook = res.data;
  return { url: hook.url, secret: hook.signing_secret };
}

/** One line for a person from an error response. */
export function describeError(e: ApiError | ErrorResponse): string {
  const where = e.error.param === undefined ? "" : ` (${e.error.param})`;
  return `${e.error.code}: ${e.error.message}${where}`;
}

// Each line below must be a type error. If it is not (say the generated
// types became `any`), the @ts-expect-error is itself an error and tsc fails.

// @ts-expect-error a source's id is a string
export const numericId: Source["id"] = 42;

// @ts-expect-error configured_props is an object, never null
export const propsNotNull: null = ({} as Source).configured_props;

// @ts-expect-error url is required to create a webhook
export const webhookWithoutUrl: CreateWebhookQuery = { name: "no url" };

// @ts-expect-error an error body has a code and a message
export const errorWithoutCode: ApiError = { error: { message: "no code" } };

// @ts-expect-error a page has no `items` field; its entries are in `data`
export const noItems = ({} as MySources).items;
