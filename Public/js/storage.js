// Small wrappers so a browser without storage (private mode) still works for the session.
const memory = new Map();

export function load(key) {
  try {
    const raw = localStorage.getItem(key);
    return raw ? JSON.parse(raw) : null;
  } catch {
    return memory.has(key) ? memory.get(key) : null;
  }
}

export function save(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch { memory.set(key, value); }
}

export function forget(key) {
  try { localStorage.removeItem(key); } catch { memory.delete(key); }
}

/**
 * The guest's persistent device id (SPEC: a UUID the client creates once and keeps). The host page keeps its own
 * under another `key`, so a host who is also a guest on this phone has two add limits, not one.
 */
export function deviceId(key = 'musicvoting.deviceId') {
  let id = load(key);
  if (!id) {
    id = crypto.randomUUID ? crypto.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
    save(key, id);
  }
  return id;
}

/** A hash like `#party=ID&hostPin=12345`, removed from the address bar once read. */
export function takeHashParameters() {
  const parameters = new URLSearchParams(location.hash.slice(1));
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  return parameters;
}
