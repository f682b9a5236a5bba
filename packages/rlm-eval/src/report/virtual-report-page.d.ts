/** The bundled report script (Observable Plot and report-page.ts), made at build time. */
declare module 'virtual:report-page' {
  const script: string;
  export default script;
}
