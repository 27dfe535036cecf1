/** hookrelay's version, in the CLI's --version, the console's status and exports. Keep equal to package.json (a test checks). */
export const VERSION = '0.1.0';
