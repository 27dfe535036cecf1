/** Copy to the clipboard where the browser allows it (secure contexts: localhost is one). */
import { toast } from '../app-state.js';

export async function copyText(text: string, done: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    toast(done);
    return true;
  } catch {
    toast('the browser refused the clipboard: select the text and copy it by hand', 'warn');
    return false;
  }
}
