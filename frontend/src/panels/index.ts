// The side panels the page mounts, in the order their toggles and sidebars go into the page (a panel
// places its own after the ones before it). A new panel is its module and one line here.
import { mountBacklinksPanel } from "./backlinks";
import { mountBrowserPanel } from "./browser";
import { mountCoherencePanel } from "./coherence/panel";
import { mountCommentsPanel } from "./comments";
import { mountHistoryPanel } from "./history/history";
import type { MountPanel } from "./host";

export const PANELS: readonly MountPanel[] = [mountHistoryPanel, mountCommentsPanel, mountCoherencePanel, mountBrowserPanel, mountBacklinksPanel];
