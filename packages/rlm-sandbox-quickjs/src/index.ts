export { createQuickJsSandbox } from './create-quickjs-sandbox.js';
