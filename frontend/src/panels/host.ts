// What the page offers a side panel: the channel to the app, the event bus its subscriptions go on, the tab
// the page shows, and opening a file. A panel takes this and nothing of the page's insides.
import type { EventBus } from "../shared/bus";
import type { Channel } from "../shared/protocol";
import type { TabSync } from "../sync/tabsync";

export interface PanelHost {
  readonly channel: Channel;
  readonly bus: EventBus;
  /** The tab the page shows, null while it shows none. */
  active(): TabSync | null;
  /** Open the file at `path` in a tab (or the tab that has it) and show it. */
  openFile(path: string): Promise<void>;
}

/** Puts a panel on the page: its toggle and sidebar, its subscriptions. */
export type MountPanel = (host: PanelHost) => void;
