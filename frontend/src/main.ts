// One page = one VMark window. `?window=LABEL` attaches to that window (or the app picks one).
import "./style.css";
import "./render.css";
import "./theme.css";
import "./dialogs/exportmenu.css";
import "./editors/links.css";
import "./editors/writing/writing.css";
import { Page } from "./page/page";
import { byId } from "./shared/dom";
import { Channel, errorText } from "./shared/protocol";

const channel = new Channel();
const page = new Page(channel);
// What the tests (and the console) may ask the page: nothing the page does not already show.
(window as unknown as { vmarkPage: unknown }).vmarkPage = {
  editorText: () => page.editorText(),
  tabId: () => page.activeTabId(),
  mode: () => page.activeMode(),
};
page.start().catch((err) => {
  byId("connection").textContent = `not connected: ${errorText(err)}`;
  byId("connection").dataset.state = "closed";
});
