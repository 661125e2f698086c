// email-trust browser script: obtains a device fingerprint token from POST /v1/fingerprint with the
// project's public key. Served by the service at /v1/fingerprint.js; no dependencies, plain ES2017.
//
//   <script src="https://trust.example.com/v1/fingerprint.js"></script>
//   const token = await EmailTrust.fingerprint({ publicKey: 'etv_pk_…' });
//   // send `token` to your backend with the sign-up form; it passes it to POST /v1/intelligence
//
// baseUrl defaults to the origin this script was loaded from. The page's origin must be allowed for
// the project: `email-trust project set-origins NAME https://your.site`.
(() => {
  const script = document.currentScript;
  const loadedFrom = script && script.src ? new URL(script.src).origin : null;

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
        body: '{}',
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
