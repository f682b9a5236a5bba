/**
 * Subscribes a listener to one of the process's signals (`SIGINT`, `SIGTERM`); the returned
 * function unsubscribes it. The default of the commands' `onInterrupt` and `onTerminate`.
 */
export function subscribeToSignal(signal: NodeJS.Signals) {
  return (listener: () => void): (() => void) => {
    process.on(signal, listener);
    return () => {
      process.off(signal, listener);
    };
  };
}
