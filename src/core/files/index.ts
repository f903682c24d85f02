// Files as the user names them: the system's refusals in words.
export { fileErrorText, systemErrorWords } from './system-error.js';
