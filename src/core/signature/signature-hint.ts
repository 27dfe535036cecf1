/**
 * A hint on a failed signature check: its text, and an id naming its cause. A reader that treats
 * one hint apart (the receiver words the general question its own way) decides by the id, so the
 * text can be reworded freely. Portable. The public VerifyResult carries the texts only.
 */
export type SignatureHintId =
  // The header could not be used (SignatureHeaderFailure).
  | 'header-missing'
  | 'header-malformed'
  | 'header-no-v1'
  | 'body-not-bytes'
  // A signature matched, but its t is outside the tolerance (either way).
  | 'clock-skew'
  // No signature matched: the guesses that explain why…
  | 'secret-whitespace'
  | 'secret-trailing-newline'
  | 'body-line-ending'
  | 'body-bom'
  | 'body-reserialised'
  | 'body-too-large-to-guess'
  // …or, when none did, the general question.
  | 'no-match-question'
  // What else the header held.
  | 'malformed-v1-skipped'
  | 'other-schemes-ignored';

export interface SignatureHint {
  readonly id: SignatureHintId;
  readonly text: string;
}

/** The texts of hints, in order, as the public VerifyResult carries them. */
export function hintTexts(hints: readonly { readonly text: string }[]): string[] {
  return hints.map((hint) => hint.text);
}
