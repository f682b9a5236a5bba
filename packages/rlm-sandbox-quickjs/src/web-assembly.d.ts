/**
 * The parts of the WebAssembly JavaScript API this package uses, which Node 20's types lack.
 * Internal: no published type names them.
 */
declare namespace WebAssembly {
  // biome-ignore lint/suspicious/noEmptyInterface: an opaque compiled module.
  interface Module {}
  interface MemoryDescriptor {
    initial: number;
    maximum?: number;
  }
  class Memory {
    constructor(descriptor: MemoryDescriptor);
    readonly buffer: ArrayBuffer;
  }
  function compile(bytes: Uint8Array | ArrayBuffer): Promise<Module>;
}
