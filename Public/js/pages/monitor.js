import { load, forget, takeHashParameters } from '../storage.js';
import { STORAGE_KEY, register } from '../monitor/registration.js';
import { showPairing } from '../monitor/pairing.js';
import { Monitor } from '../monitor/monitor-page.js';

async function boot() {
  const hash = takeHashParameters();
  const stored = load(STORAGE_KEY);
  try {
    if (hash.get('party') && hash.get('hostPin')) {
      const token = await register(hash.get('party'), hash.get('hostPin'));
      return run(hash.get('party'), token);
    }
    if (stored && stored.partyId && stored.token) {
      // R22: re-registering continues the current track where it is; no PIN needed after a reload.
      await register(stored.partyId, stored.token);
      return run(stored.partyId, stored.token);
    }
  } catch (error) {
    if (![401, 403, 404].includes(error.status)) {
      setTimeout(boot, 3000);
      return;
    }
    forget(STORAGE_KEY);
  }
  showPairing(run);
}

function run(partyId, token) {
  return new Monitor(partyId, token).start();
}

boot();
