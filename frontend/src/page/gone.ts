// A file deleted (or renamed) on disk by another program while its tab is open: the tab keeps the text and a
// banner says the file is gone; Save writes it again (closing asks first: the tab holds the only copy).
import { el, setHidden } from "../shared/dom";

export class GoneBanner {
  private banner: HTMLElement;

  constructor(after: HTMLElement, save: () => void) {
    const button = el("button", { type: "button", id: "gone-save" }, "Save it again");
    button.addEventListener("click", save);
    this.banner = el(
      "div",
      { id: "gone", class: "divergence gone", role: "status", "data-testid": "gone", hidden: "" },
      el("span", {}, "This file was deleted or renamed on disk. Its text is still here."),
      button,
    );
    after.after(this.banner);
  }

  show(missing: boolean): void {
    setHidden(this.banner, !missing);
  }
}
