/** Messages between the bench and its plain Node worker. */
export type PlainNodeRequest =
  | { readonly type: 'set'; readonly id: number; readonly name: string; readonly value: unknown }
  | { readonly type: 'run'; readonly id: number; readonly code: string };

export type PlainNodeReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly message: string };
