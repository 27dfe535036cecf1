/** The type name of a trigger, as the generated TypeScript and the OpenAPI components spell it: `trustcenter.access_requested` → `TrustcenterAccessRequested`. */
export const typeNameOf = (trigger: string): string =>
  trigger.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
