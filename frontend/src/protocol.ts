// The page's side of the UI protocol over the WebSocket /ui (same origin, cookie-authenticated).
// Frames: requests {id, type, payload} -> {type: "response", id, success, data | error};
// events {type: "event", event, payload, requestId?}; a request event wants a `ui.reply`.
// The shapes are the app's (src/vmark/protocol/wire_types.py), generated into wire.gen.ts.
import type { Events, Reply, RequestEvents, Requests } from "./wire.gen";

type PushEvent = { [K in keyof Events]: { type: "event"; event: K; payload: Events[K]; requestId?: undefined } };
type AskEvent = { [K in keyof RequestEvents]: { type: "event"; event: K; payload: RequestEvents[K]; requestId: string } };
/** An event from the app: narrowing on `event` gives its payload's shape. */
export type AppEvent = PushEvent[keyof Events] | AskEvent[keyof RequestEvents];
/** An event that wants a `ui.reply`. */
export type RequestEvent = AskEvent[keyof RequestEvents];
/** What the page's editor answers to an `editor` request (sent in a `ui.reply`). */
export type EditorAnswer = Omit<Reply, "requestId">;

interface Response {
  type: "response";
  id: string | null;
  success: boolean;
  data?: unknown;
  error?: unknown;
}

export class ProtocolError extends Error {
  constructor(readonly error: unknown) {
    super(typeof error === "string" ? error : JSON.stringify(error));
  }
}

/** A progress frame's payload (app/progress_frames.py): one growing count over the work's phases. */
export interface Progress {
  progress: number;
  total: number;
  message: string;
}

type Pending = { resolve: (data: unknown) => void; reject: (err: Error) => void; progress?: (p: Progress) => void };

export class Channel {
  private ws: WebSocket | null = null;
  private next = 1;
  private pending = new Map<string, Pending>();
  onEvent: (event: AppEvent) => void = () => {};
  onClose: () => void = () => {};

  open(): Promise<void> {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}/ui`);
    this.ws = ws;
    return new Promise((resolve, reject) => {
      ws.addEventListener("message", (msg) => {
        const frame = JSON.parse(String(msg.data)) as { type: string };
        if (frame.type === "hello") resolve();
        else this.receive(frame);
      });
      ws.addEventListener("close", () => {
        reject(new Error("the app closed the connection"));
        for (const p of this.pending.values()) p.reject(new Error("connection closed"));
        this.pending.clear();
        this.onClose();
      });
    });
  }

  private receive(frame: { type: string }): void {
    if (frame.type === "event") {
      this.onEvent(frame as AppEvent);
      return;
    }
    if (frame.type === "progress") {
      const { id, payload } = frame as unknown as { id: string | null; payload: Progress };
      if (id !== null) this.pending.get(id)?.progress?.(payload);
      return;
    }
    const response = frame as Response;
    const pending = response.id === null ? undefined : this.pending.get(response.id);
    if (!pending) return;
    this.pending.delete(response.id as string);
    if (response.success) pending.resolve(response.data);
    else pending.reject(new ProtocolError(parseError(response.error)));
  }

  /** A request: its payload and its answer are the app's (wire.gen.ts). */
  request<K extends keyof Requests>(type: K, payload: Requests[K]["payload"]): Promise<Requests[K]["result"]> {
    return this.send(type, payload);
  }

  /** A request whose work reports its progress (the app sends progress frames before the answer). */
  requestWithProgress<K extends keyof Requests>(
    type: K,
    payload: Requests[K]["payload"],
    onProgress: (progress: Progress) => void,
  ): Promise<Requests[K]["result"]> {
    return this.send(type, payload, onProgress);
  }

  private send<T>(type: string, payload: object, progress?: (p: Progress) => void): Promise<T> {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return Promise.reject(new Error("not connected"));
    const id = `p${this.next++}`;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (d: unknown) => void, reject, progress });
      ws.send(JSON.stringify(progress ? { id, type, payload, progress: true } : { id, type, payload }));
    });
  }
}

function parseError(error: unknown): unknown {
  if (typeof error !== "string") return error;
  try {
    return JSON.parse(error);
  } catch {
    return error;
  }
}

export function errorText(err: unknown): string {
  if (err instanceof ProtocolError) {
    const e = err.error as { error?: string; message?: string } | string;
    if (typeof e === "string") return e;
    return [e.error, e.message].filter(Boolean).join(": ");
  }
  return err instanceof Error ? err.message : String(err);
}
