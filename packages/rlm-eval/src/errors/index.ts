export { EvalSettingsError } from './eval-settings-error.js';
export { ScorerModuleError } from './scorer-module-error.js';
export { UnknownScorerError } from './unknown-scorer-error.js';
