/**
 * The header that names a refusal's code (SIGNATURE_MISMATCH, …) beside the JSON body that names it
 * too: `hookrelay listen` and every adapter of the kit send it, and `hookrelay send` reads it (it
 * never reads bodies).
 */
export const ERROR_CODE_HEADER = 'x-hookrelay-error';
