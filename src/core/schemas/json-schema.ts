/** The part of JSON Schema (draft 2020-12) the trigger schemas use: plain data, no library. */
export interface JsonSchema {
  $schema?: string;
  title?: string;
  description?: string;
  type?: 'object' | 'string' | 'boolean' | 'integer' | 'number' | 'array' | 'null';
  const?: string;
  enum?: readonly string[];
  format?: 'uuid' | 'date-time';
  minLength?: number;
  examples?: readonly unknown[];
  properties?: Readonly<Record<string, JsonSchema>>;
  required?: readonly string[];
  additionalProperties?: boolean;
}
