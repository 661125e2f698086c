// email-trust browser script: obtains a device fingerprint token from POST /v1/fingerprint with the
// project's public key. Served by the service at /v1/fingerprint.js; no dependencies, plain ES2017.
//
//   <script src="https://trust.example.com/v1/fingerprint.js"></script>
//   const token = await EmailTrust.fingerprint({ publicKey: 'etv_pk_…' });
//   // send `token` to your backend with the sign-up form; it passes it to POST /v1/intelligence
//
// It sends what the page can tell about the device (a random id kept in localStorage, time zone,
// languages, platform, screen, cores, memory, touch points): the service hashes them with the
// User-Agent and Accept-Language headers into the token's device, which velocity by device counts.
// It also says whether the browser is driven by a program (navigator.webdriver), and the service keeps
// the time zone and what it noticed (automation, inconsistent languages) in the token for the device
// checks. No canvas, audio or other fingerprinting, and nothing that asks the user.
//
// baseUrl defaults to the origin this script was loaded from. The page's origin must be allowed for
// the project: `email-trust project set-origins NAME https://your.site`.
(() => {
  const script = document.currentScript;
  const loadedFrom = script && script.src ? new URL(script.src).origin : null;

  const STORAGE_KEY = 'email-trust.browser-id';

  /** A random id kept in localStorage: the same browser keeps its device until its site data is cleared. */
  function browserId() {
    try {
      let id = window.localStorage.getItem(STORAGE_KEY);
      if (!id || !/^[A-Za-z0-9_-]{16,64}$/.test(id)) {
        const bytes = new Uint8Array(16);
        window.crypto.getRandomValues(bytes);
        id = Array.prototype.map.call(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
        window.localStorage.setItem(STORAGE_KEY, id);
      }
      return id;
    } catch (_) {
      return undefined; // storage disabled (private mode, sandboxed frame): the other signals remain
    }
  }

  /** What the page can tell about the device, each within the limits POST /v1/fingerprint accepts. */
  function deviceSignals() {
    const device = {};
    const id = browserId();
    if (id) device.browser_id = id;
    try {
      const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
      if (typeof zone === 'string' && zone.length > 0 && zone.length <= 64) device.timezone = zone;
    } catch (_) {
      // no Intl time zone: leave it out
    }
    const languages = (navigator.languages || []).filter((l) => typeof l === 'string' && l.length > 0 && l.length <= 35).slice(0, 10);
    if (languages.length > 0) device.languages = languages;
    if (typeof navigator.platform === 'string') device.platform = navigator.platform.slice(0, 64);
    if (window.screen) device.screen = `${window.screen.width}x${window.screen.height}x${window.screen.colorDepth}`;
    if (Number.isInteger(navigator.hardwareConcurrency)) device.hardware_concurrency = Math.min(1024, navigator.hardwareConcurrency);
    if (typeof navigator.deviceMemory === 'number') device.device_memory = Math.min(1024, navigator.deviceMemory);
    if (Number.isInteger(navigator.maxTouchPoints)) device.touch_points = Math.min(256, navigator.maxTouchPoints);
    // Set by the browser itself when a program drives it (WebDriver, or DevTools with automation on).
    if (navigator.webdriver === true) device.webdriver = true;
    if (device.screen && !/^[0-9]{1,5}x[0-9]{1,5}(x[0-9]{1,2})?$/.test(device.screen)) device.screen = undefined;
    return device;
  }

  /** Resolves to the fingerprint token; rejects with the service's error message (and `status`). */
  async function fingerprint(options) {
    const publicKey = options ? options.publicKey : undefined;
    const baseUrl = (options && options.baseUrl) || loadedFrom;
    if (typeof publicKey !== 'string' || publicKey === '') throw new Error('EmailTrust.fingerprint: publicKey (the project public key) is required');
    if (!baseUrl) throw new Error('EmailTrust.fingerprint: baseUrl (the service address) is required when the script is not loaded from the service');
    const url = `${String(baseUrl).replace(/\/+$/, '')}/v1/fingerprint`;
    let response;
    try {
      response = await fetch(url, {
        method: 'POST',
        mode: 'cors',
        credentials: 'omit',
        headers: { 'content-type': 'application/json', 'x-api-key': publicKey },
        body: JSON.stringify({ device: deviceSignals() }),
      });
    } catch (cause) {
      // A refused CORS answer and an unreachable service look the same to the page.
      throw new Error(
        `EmailTrust.fingerprint: no readable answer from ${url} (${cause && cause.message}); is the service reachable and ${location.origin} allowed with \`email-trust project set-origins\`?`,
      );
    }
    const body = await response.json().catch(() => null);
    if (response.ok && body && typeof body.fingerprint === 'string') return body.fingerprint;
    const error = new Error(body && typeof body.error === 'string' ? body.error : `POST ${url} answered HTTP ${response.status}`);
    error.status = response.status;
    throw error;
  }

  window.EmailTrust = Object.assign(window.EmailTrust || {}, { fingerprint });
})();
