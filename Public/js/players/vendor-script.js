/**
 * Loads a vendor's player script once and resolves with its global when the script says it is ready
 * (both YouTube and Spotify call a global function by name). Resolves at once when the global exists.
 */
const loading = new Map();

export function vendorScript(src, readyCallbackName, global) {
  if (!loading.has(src)) {
    loading.set(src, new Promise((resolve, reject) => {
      if (global()) return resolve(global());
      window[readyCallbackName] = () => resolve(global());
      const script = document.createElement('script');
      script.src = src;
      script.onerror = () => reject(new Error(`${src} unavailable`));
      document.head.append(script);
    }));
  }
  return loading.get(src);
}
