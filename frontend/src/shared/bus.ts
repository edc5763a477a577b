// The page's event bus: the app's events (the generated `Events`, pushed over the channel) and the page's
// own, each delivered to whoever subscribed to it by name. A panel subscribes to what it shows in its own
// constructor, so the page routes nothing by hand: a new event kind is its wire type (wire.gen.ts), the
// app's handler that sends it, and the subscriptions of the panels that show it.
import type { Events } from "../wire.gen";

/** What the page itself announces: changes the app sends no event for, as the panels see them. */
export interface PageEvents {
  /** The tab the page shows changed, or was drawn again (a switch, a mode change, the app's state). */
  active: null;
  /** The shown tab took a change from elsewhere (an agent, the disk, another window). */
  remote: null;
  /** The window's workspaces were listed again (the file tree loaded). */
  files: null;
}

export type BusEvents = Events & PageEvents;
export type BusHandler<K extends keyof BusEvents> = (payload: BusEvents[K]) => void | Promise<void>;

/** One of the app's events as the channel hands it over: its name and its payload. */
export type PushedEvent = { [K in keyof Events]: { event: K; payload: Events[K] } }[keyof Events];

export class EventBus {
  private handlers: { [K in keyof BusEvents]?: BusHandler<K>[] } = {};

  /** Call `handler` with each `event`'s payload, after the handlers subscribed before it; returns the unsubscribe. */
  on<K extends keyof BusEvents>(event: K, handler: BusHandler<K>): () => void {
    const list: BusHandler<K>[] = (this.handlers[event] ??= []);
    list.push(handler);
    return () => {
      const at = list.indexOf(handler);
      if (at >= 0) list.splice(at, 1);
    };
  }

  /** Deliver `payload` to `event`'s handlers in the order they subscribed, each done before the next starts
   * (the page applies a `doc` to its editor before a panel reads the text). One handler's failure is its own:
   * it is reported and the others still run. */
  async emit<K extends keyof BusEvents>(event: K, payload: BusEvents[K]): Promise<void> {
    const list: BusHandler<K>[] = [...(this.handlers[event] ?? [])];
    for (const handler of list) {
      try {
        await handler(payload);
      } catch (err) {
        console.error(`the ${event} handler failed`, err);
      }
    }
  }

  /** Deliver one of the app's events. */
  dispatch(event: PushedEvent): Promise<void> {
    return this.emit(event.event, event.payload as never);
  }
}
