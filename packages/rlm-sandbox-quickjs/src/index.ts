export { createQuickJsSandbox, type QuickJsSandboxSettings } from './create-quickjs-sandbox.js';
