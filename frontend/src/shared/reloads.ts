// A panel's loads from the app: one at a time and in order (a later load always shows the later state), and
// "load again soon" for events that come in bursts (a save, then its recording): one load once they settle.

export class Reloads {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private loading: Promise<void> = Promise.resolve();

  /** `load` draws the panel from the app's answers; `failed` hears what a load started by `soon` threw. */
  constructor(
    private readonly load: () => Promise<void>,
    private readonly delayMs: number,
    private readonly failed: (err: unknown) => void,
  ) {}

  /** Load after the loads asked for before it; the promise is this load's. */
  now(): Promise<void> {
    const run = this.loading.then(() => this.load());
    this.loading = run.catch(() => {});
    return run;
  }

  /** Load `delayMs` after the last of a burst of asks, in the background. */
  soon(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.now().catch(this.failed), this.delayMs);
  }
}
