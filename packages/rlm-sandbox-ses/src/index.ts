export { createSesSandbox, type SesSandboxSettings } from './create-ses-sandbox.js';
