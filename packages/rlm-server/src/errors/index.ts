export { ContextTooLargeError } from './context-too-large-error.js';
export { ServedRequestError, type ServedRequestStatus } from './served-request-error.js';
export { ServerSettingsError } from './server-settings-error.js';
