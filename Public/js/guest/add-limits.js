import { t, tn } from '../i18n.js';

/**
 * The guest's add limits as the page shows them. R11: after a 429 the "+" buttons wait for `Retry-After`, with a
 * countdown. R18b: the add budget of the last queue read ("noch N Songs, nächster in ~S s"), counted down from then.
 * `changed()` draws the "+" buttons again; `readBudget()` reads the queue (and with it the budget) again.
 */
export class AddLimits {
  constructor({ changed, readBudget }) {
    this.changed = changed;
    this.readBudget = readBudget;
    this.allowedAt = 0;
    this.waitLine = document.getElementById('add-wait');
    this.waitTimer = undefined;
    this.budget = null;
    this.budgetReadAt = 0;
    this.budgetLine = document.getElementById('add-budget');
    this.budgetTimer = setInterval(() => this.renderBudget(), 1000);
  }

  /** The party ended: no countdown runs and nothing reads the queue again (it answers 404 now, R5). */
  stop() {
    clearInterval(this.budgetTimer);
    clearInterval(this.waitTimer);
  }

  /** Whether the "+" buttons wait (R11). */
  waiting() {
    return Date.now() < this.allowedAt;
  }

  /** The countdown's text, for a "+" pressed while it runs. */
  waitText() {
    return this.waitLine.textContent;
  }

  hold(seconds) {
    this.allowedAt = Date.now() + seconds * 1000;
    clearInterval(this.waitTimer);
    const tick = () => {
      const left = Math.ceil((this.allowedAt - Date.now()) / 1000);
      this.waitLine.hidden = left <= 0;
      if (left <= 0) {
        clearInterval(this.waitTimer);
        this.changed();
      } else {
        this.waitLine.textContent = t('guest.addWait', { seconds: left });
      }
    };
    tick();
    this.waitTimer = setInterval(tick, 1000);
    this.changed();
  }

  /** The queue answer's `budget` (absent: the last one stays). */
  applyBudget(next) {
    if (!next) return;
    this.budget = next;
    this.budgetReadAt = Date.now();
    if (next.addsLeft === 0 && next.nextAddInMs > 0) this.hold(Math.ceil(next.nextAddInMs / 1000));
    this.renderBudget();
  }

  renderBudget() {
    const budget = this.budget;
    const line = this.budgetLine;
    const waitMs = budget ? budget.nextAddInMs - (Date.now() - this.budgetReadAt) : 0;
    line.hidden = !budget || budget.addsLeft === 0 || waitMs <= 0;
    if (!line.hidden) line.textContent = tn('guest.budget', budget.addsLeft, { seconds: Math.ceil(waitMs / 1000) });
    // An add came back: read the budget again (at most once per add, so ten reads a minute at most).
    if (budget && budget.nextAddInMs > 0 && waitMs <= 0) {
      budget.nextAddInMs = 0;
      this.readBudget();
    }
  }
}
