/**
 * WAI-ARIA tabs: `[role=tab]` buttons in `tablist` show their `aria-controls` panel. Arrow keys, Home and End move
 * between tabs (roving tabindex). Returns `select(id)` for the page.
 */
export function tabs(tablist, onSelect = () => {}) {
  const all = [...tablist.querySelectorAll('[role="tab"]')];
  const select = (tab, focus = false) => {
    for (const other of all) {
      const selected = other === tab;
      other.setAttribute('aria-selected', String(selected));
      other.tabIndex = selected ? 0 : -1;
      document.getElementById(other.getAttribute('aria-controls')).hidden = !selected;
    }
    if (focus) tab.focus();
    onSelect(tab.id);
  };
  for (const tab of all) {
    tab.addEventListener('click', () => select(tab));
    tab.addEventListener('keydown', (event) => {
      const index = all.indexOf(tab);
      const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: all.length - 1 }[event.key];
      if (next === undefined) return;
      event.preventDefault();
      select(all[(next + all.length) % all.length], true);
    });
  }
  return (id) => select(document.getElementById(id));
}
