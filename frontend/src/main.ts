// One page = one VMark window. `?window=LABEL` attaches to that window (or the app picks one).
import "./style.css";
import "./render.css";
import "./theme.css";
import "./exportmenu.css";
import "./links.css";
import "./writing/writing.css";
import { Page } from "./page";
import { byId } from "./dom";
import { Channel, errorText } from "./protocol";

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
