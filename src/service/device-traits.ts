// What POST /v1/fingerprint observes of a browser when it issues a token, beyond its identity: the traits
// of automation and of inconsistent languages, read from the script's signals (public/fingerprint.js) and
// the request's own headers, which only this request sees together. The token carries them sealed; the
// device plugin turns them into facts (plugins/device/README.md says what each gets wrong).
import type { ClientSignals } from './fingerprint.js';

/** Traits that suggest a browser driven by a program. */
export const AUTOMATION_TRAITS = ['webdriver', 'headless_user_agent', 'platform_mismatch'] as const;
/** Traits of a browser's languages that a person's browser does not show. */
export const LANGUAGE_TRAITS = ['no_languages', 'languages_mismatch'] as const;

export interface DeviceTraits {
  automation: Array<(typeof AUTOMATION_TRAITS)[number]>;
  languages: Array<(typeof LANGUAGE_TRAITS)[number]>;
}

/** User-Agent tokens of headless and scripted browsers. */
const HEADLESS = /HeadlessChrome|PhantomJS|SlimerJS/;

type Os = 'windows' | 'mac' | 'ios' | 'android' | 'chromeos' | 'linux';

/** The operating system a User-Agent names; null when it names none we know. The order matters: Android's says Linux. */
function osOfUserAgent(userAgent: string): Os | null {
  if (/Windows NT|Windows Phone|Win64|WOW64/.test(userAgent)) return 'windows';
  if (/iPhone|iPad|iPod/.test(userAgent)) return 'ios';
  if (/Android/.test(userAgent)) return 'android';
  if (/CrOS/.test(userAgent)) return 'chromeos';
  if (/Macintosh|Mac OS X/.test(userAgent)) return 'mac';
  if (/Linux|X11/.test(userAgent)) return 'linux';
  return null;
}

/** The systems each `navigator.platform` is reported on; null for a value we do not know (or an empty one). */
function systemsOfPlatform(platform: string): readonly Os[] | null {
  if (/^Win/.test(platform)) return ['windows'];
  // iPadOS and an iPhone asking for the desktop site report a Mac's User-Agent, and a Mac's platform on iPad.
  if (/^Mac/.test(platform)) return ['mac', 'ios'];
  if (/^(iPhone|iPad|iPod)/.test(platform)) return ['ios', 'mac'];
  // Android, ChromeOS and desktop Linux all report a Linux platform (Linux armv8l, Linux x86_64, …).
  if (/^Linux|^Android/.test(platform)) return ['linux', 'android', 'chromeos'];
  return null;
}

/** The primary language subtag of a tag (`en` of `en-GB`), lower case. */
const primaryOf = (tag: string) => tag.trim().split(/[-_]/)[0]?.toLowerCase() ?? '';

/** The first language of an Accept-Language header (the one without a q-value or the highest first); null when none. */
function firstAccepted(header: string): string | null {
  const first = header.split(',')[0]?.split(';')[0]?.trim();
  return first && first !== '*' ? first : null;
}

/**
 * The traits seen in one fingerprint request. Without the script's signals (an empty body) only the
 * headers are read: the languages are not known, so no language trait is claimed.
 */
export function deviceTraits(userAgent: string, acceptLanguage: string, client: ClientSignals | undefined): DeviceTraits {
  const automation: DeviceTraits['automation'] = [];
  const languages: DeviceTraits['languages'] = [];
  if (client?.webdriver === true) automation.push('webdriver');
  if (HEADLESS.test(userAgent)) automation.push('headless_user_agent');
  const os = osOfUserAgent(userAgent);
  const systems = typeof client?.platform === 'string' ? systemsOfPlatform(client.platform) : null;
  if (os !== null && systems !== null && !systems.includes(os)) automation.push('platform_mismatch');
  // The script ran when it sent anything: a browser's script always has languages to send.
  if (client !== undefined && Object.keys(client).length > 0) {
    const listed = client.languages ?? [];
    const accepted = firstAccepted(acceptLanguage);
    if (listed.length === 0) languages.push('no_languages');
    else if (accepted !== null && primaryOf(accepted) !== primaryOf(listed[0] as string)) languages.push('languages_mismatch');
  }
  return { automation, languages };
}
