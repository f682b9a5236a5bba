export { InvalidToolContractError } from './invalid-tool-contract-error.js';
export { InvalidToolNameError } from './invalid-tool-name-error.js';
export { ToolConflictError } from './tool-conflict-error.js';
export { ToolNotFoundError } from './tool-not-found-error.js';
export { ToolStoreLockError } from './tool-store-lock-error.js';
